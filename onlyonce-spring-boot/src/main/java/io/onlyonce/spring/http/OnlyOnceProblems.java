package io.onlyonce.spring.http;

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

    /** The languages the problems are written in: English (the default) and Chinese. */
    private static final java.util.Set<String> LANGUAGES = java.util.Set.of("en", "zh");

    /**
     * The locale to answer in, of those a caller accepts in order of preference ({@code Accept-Language}
     * sorted by quality): the first whose language the problems are written in, so that
     * {@code fr, zh;q=0.5} is answered in Chinese; the first one (English text) when none is.
     */
    public static Locale language(Iterable<Locale> requested) {
        Locale first = null;
        for (Locale locale : requested) {
            if (first == null) {
                first = locale;
            }
            if (LANGUAGES.contains(locale.getLanguage())) {
                return locale;
            }
        }
        return first == null ? Locale.ENGLISH : first;
    }

    /** Whether the problems are written in {@code locale}'s language. */
    public static boolean writtenIn(Locale locale) {
        return LANGUAGES.contains(locale.getLanguage());
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
