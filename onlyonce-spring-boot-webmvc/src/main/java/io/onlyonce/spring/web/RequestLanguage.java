package io.onlyonce.spring.web;

import io.onlyonce.spring.http.OnlyOnceProblems;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Collections;
import java.util.Locale;

/** The language a servlet request's problems are answered in. */
public final class RequestLanguage {

    private RequestLanguage() {
    }

    /**
     * {@link OnlyOnceProblems#language(Iterable)} of the request's {@code Accept-Language} (its locales,
     * by quality); English when the header cannot be read.
     */
    public static Locale of(HttpServletRequest request) {
        try {
            return OnlyOnceProblems.language(Collections.list(request.getLocales()));
        } catch (RuntimeException unreadable) {
            return Locale.ENGLISH;
        }
    }
}
