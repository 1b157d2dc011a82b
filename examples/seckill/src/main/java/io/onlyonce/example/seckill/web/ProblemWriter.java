package io.onlyonce.example.seckill.web;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/** Writes a problem straight to the servlet response, for filters and Spring Security handlers. */
@Component
public class ProblemWriter {

    private final Problems problems;
    private final JsonMapper json;

    public ProblemWriter(Problems problems, JsonMapper json) {
        this.problems = problems;
        this.json = json;
    }

    public void write(HttpServletRequest request, HttpServletResponse response, AppProblem problem, Object... arguments)
            throws IOException {
        if (response.isCommitted()) {
            return;
        }
        response.resetBuffer();
        response.setStatus(problem.status().value());
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.getOutputStream().write(json.writeValueAsBytes(problems.asMap(problem, request, arguments)));
        response.flushBuffer();
    }
}
