package io.onlyonce.example.seckill.web;

import org.springframework.validation.BindingResult;

/**
 * A body validated by hand failed its constraints: answered 400 {@code validation-failed} with one
 * entry per failed field in {@code errors}, as a {@code @Valid} body is. Control flow, so no stack trace.
 */
public final class InvalidFieldsException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient BindingResult errors;

    public InvalidFieldsException(BindingResult errors) {
        super("validation-failed", null, false, false);
        this.errors = errors;
    }

    public BindingResult errors() {
        return errors;
    }
}
