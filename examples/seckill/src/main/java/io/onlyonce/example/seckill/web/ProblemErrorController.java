package io.onlyonce.example.seckill.web;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.context.i18n.LocaleContextHolder;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The container's error page ({@code /error}, for failures outside Spring MVC): a problem in place
 * of Spring Boot's default error JSON, with no exception text.
 */
@RestController
public class ProblemErrorController implements ErrorController {

    private final Problems problems;

    public ProblemErrorController(Problems problems) {
        this.problems = problems;
    }

    @RequestMapping("${server.error.path:/error}")
    public ResponseEntity<ProblemDetail> error(HttpServletRequest request) {
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        int status = code instanceof Integer i ? i : 404;
        AppProblem type = AppProblem.forStatus(status);
        ProblemDetail problem = problems.create(type, LocaleContextHolder.getLocale());
        problem.setStatus(status);
        Object uri = request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
        if (uri instanceof String path) {
            problem.setInstance(java.net.URI.create(path.replaceAll("[^A-Za-z0-9/_.~-]", "")));
        }
        return ResponseEntity.status(status).contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
    }
}
