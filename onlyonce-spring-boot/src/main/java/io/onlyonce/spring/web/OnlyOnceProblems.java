package io.onlyonce.spring.web;

import java.net.URI;
import java.util.Locale;
import org.springframework.context.MessageSource;
import org.springframework.context.support.ResourceBundleMessageSource;
import org.springframework.http.ProblemDetail;

/**
 * Builds the RFC 9457 problem details of {@link ProblemType}s with a title and detail in the
 * request's locale (English and Chinese shipped; {@code Accept-Language} decides). Messages never
 * name the store or its errors.
 */
public final class OnlyOnceProblems {

    private final String typeBase;
    private final MessageSource messages;

    public OnlyOnceProblems(String typeBase) {
        this.typeBase = typeBase;
        ResourceBundleMessageSource source = new ResourceBundleMessageSource();
        source.setBasename("io/onlyonce/spring/messages");
        source.setDefaultEncoding("UTF-8");
        source.setFallbackToSystemLocale(false);
        this.messages = source;
    }

    /** The problem for {@code type} in {@code locale}. */
    public ProblemDetail create(ProblemType type, Locale locale) {
        ProblemDetail problem = ProblemDetail.forStatus(type.status());
        problem.setType(URI.create(typeBase + type.slug()));
        problem.setTitle(messages.getMessage("problem." + type.slug() + ".title", null, locale));
        problem.setDetail(messages.getMessage("problem." + type.slug() + ".detail", null, locale));
        return problem;
    }
}
