package io.onlyonce.example.seckill.web;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.MessageSource;
import org.springframework.http.ProblemDetail;
import org.springframework.stereotype.Component;

/**
 * Builds RFC 9457 problem details with a title and detail in the caller's language (English, or
 * Chinese for {@code Accept-Language: zh...}). The {@code type} URIs share the OnlyOnce starter's
 * base ({@code onlyonce.problem-type-base}), so a client sees one family of problem types.
 */
@Component
public class Problems {

    private final MessageSource messages;
    private final String typeBase;

    public Problems(MessageSource messages, @Value("${onlyonce.problem-type-base:urn:onlyonce:problem:}") String typeBase) {
        this.messages = messages;
        this.typeBase = typeBase;
    }

    public ProblemDetail create(AppProblem problem, Locale locale, Object... arguments) {
        ProblemDetail detail = ProblemDetail.forStatus(problem.status());
        detail.setType(URI.create(typeBase + problem.slug()));
        detail.setTitle(messages.getMessage("problem." + problem.slug() + ".title", null, problem.slug(), locale));
        detail.setDetail(messages.getMessage("problem." + problem.slug() + ".detail", arguments, "", locale));
        return detail;
    }

    /** The problem as a JSON-ready map, for code outside Spring MVC (filters, security handlers). */
    public Map<String, Object> asMap(AppProblem problem, HttpServletRequest request, Object... arguments) {
        ProblemDetail detail = create(problem, locale(request), arguments);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", detail.getType().toString());
        body.put("title", detail.getTitle());
        body.put("status", detail.getStatus());
        body.put("detail", detail.getDetail());
        String instance = ProblemErrorReportValve.instance(request.getRequestURI());
        if (instance != null) {
            body.put("instance", instance);
        }
        return body;
    }

    /** The caller's locale from Accept-Language; English when there is none or the firewall refuses its value. */
    public static Locale locale(HttpServletRequest request) {
        try {
            return request.getHeader("Accept-Language") == null ? Locale.ENGLISH
                    : io.onlyonce.spring.web.RequestLanguage.of(request);
        } catch (RuntimeException refused) {
            return Locale.ENGLISH;
        }
    }
}
