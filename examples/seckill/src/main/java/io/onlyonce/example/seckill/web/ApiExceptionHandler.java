package io.onlyonce.example.seckill.web;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.MessageSource;
import org.springframework.context.i18n.LocaleContextHolder;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.util.NumberUtils;
import org.springframework.util.StringUtils;
import org.springframework.validation.BindingResult;
import org.springframework.validation.FieldError;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.method.annotation.HandlerMethodValidationException;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.validation.method.ParameterValidationResult;
import org.springframework.context.MessageSourceResolvable;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.exc.MismatchedInputException;

/**
 * Turns every error into an RFC 9457 problem in the caller's language: business rules
 * ({@link ApiException}), Spring MVC's own exceptions (malformed JSON, wrong types, missing headers,
 * unknown paths...), and anything unexpected (500, logged with its request id, never shown: no SQL,
 * stack trace or class name reaches the client). The OnlyOnce starter's own advice runs first for
 * its rejections and replays.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE - 10)
public class ApiExceptionHandler extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ApiExceptionHandler.class);

    private final Problems problems;
    private final MessageSource messages;

    public ApiExceptionHandler(Problems problems, MessageSource messages) {
        this.problems = problems;
        this.messages = messages;
    }

    @ExceptionHandler(ApiException.class)
    public ResponseEntity<ProblemDetail> handle(ApiException e) {
        ProblemDetail problem = problems.create(e.problem(), LocaleContextHolder.getLocale(), e.arguments());
        e.properties().forEach(problem::setProperty);
        HttpHeaders headers = new HttpHeaders();
        if (e.retryAfterSeconds() != null) {
            headers.set(HttpHeaders.RETRY_AFTER, Long.toString(e.retryAfterSeconds()));
        }
        return respond(problem, headers);
    }

    @ExceptionHandler(AuthenticationException.class)
    public ResponseEntity<ProblemDetail> handle(AuthenticationException e) {
        return respond(problems.create(AppProblem.UNAUTHORIZED, LocaleContextHolder.getLocale()), HttpHeaders.EMPTY);
    }

    @ExceptionHandler(AccessDeniedException.class)
    public ResponseEntity<ProblemDetail> handle(AccessDeniedException e) {
        return respond(problems.create(AppProblem.FORBIDDEN, LocaleContextHolder.getLocale()), HttpHeaders.EMPTY);
    }

    /** How long a client is asked to wait when the database cannot be reached. */
    static final long DATABASE_RETRY_AFTER_SECONDS = 2;

    /**
     * The database cannot be reached (no connection for the transaction, the connection lost): 503
     * {@code database-unavailable} with {@code Retry-After}, as for a store that is down. Its
     * transaction, if it began, rolled back: nothing was changed.
     */
    @ExceptionHandler({CannotCreateTransactionException.class, DataAccessResourceFailureException.class})
    public ResponseEntity<ProblemDetail> handleDatabaseDown(Exception e) {
        log.warn("database unavailable: {}", e.toString());
        HttpHeaders headers = new HttpHeaders();
        headers.set(HttpHeaders.RETRY_AFTER, Long.toString(DATABASE_RETRY_AFTER_SECONDS));
        return respond(problems.create(AppProblem.DATABASE_UNAVAILABLE, LocaleContextHolder.getLocale()), headers);
    }

    /** Anything unexpected: logged in full, answered without detail. */
    @ExceptionHandler(Exception.class)
    public ResponseEntity<ProblemDetail> handleUnexpected(Exception e) {
        log.error("unexpected failure", e);
        return respond(problems.create(AppProblem.INTERNAL_ERROR, LocaleContextHolder.getLocale()), HttpHeaders.EMPTY);
    }

    /**
     * The firewall refusing a header value when the application reads it (a control character in
     * {@code X-Signature}, say, read first by a controller): 400 {@code malformed-http-request}, not a 500.
     */
    @ExceptionHandler(RequestRejectedException.class)
    public ResponseEntity<ProblemDetail> handleRejected(RequestRejectedException rejected) {
        return respond(problems.create(AppProblem.MALFORMED_HTTP_REQUEST, LocaleContextHolder.getLocale()), HttpHeaders.EMPTY);
    }

    /** A body validated by hand (the payment notice): 400 {@code validation-failed} with its field errors. */
    @ExceptionHandler(InvalidFieldsException.class)
    public ResponseEntity<ProblemDetail> handleInvalid(InvalidFieldsException invalid) {
        Locale locale = LocaleContextHolder.getLocale();
        ProblemDetail problem = problems.create(AppProblem.VALIDATION_FAILED, locale);
        problem.setProperty("errors", fieldErrors(invalid.errors(), locale));
        return respond(problem, HttpHeaders.EMPTY);
    }

    /** Spring MVC's own exceptions: same shape, our types and messages, nothing from the exception text. */
    @Override
    protected @Nullable ResponseEntity<Object> handleExceptionInternal(Exception ex, @Nullable Object body,
            HttpHeaders headers, HttpStatusCode statusCode, WebRequest request) {
        Locale locale = LocaleContextHolder.getLocale();
        ProblemDetail problem;
        if (ex instanceof MethodArgumentNotValidException invalid) {
            problem = problems.create(AppProblem.VALIDATION_FAILED, locale);
            problem.setProperty("errors", fieldErrors(invalid.getBindingResult(), locale));
        } else if (ex instanceof HandlerMethodValidationException invalid) {
            problem = problems.create(AppProblem.VALIDATION_FAILED, locale);
            problem.setProperty("errors", parameterErrors(invalid, locale));
        } else if (ex instanceof MethodArgumentTypeMismatchException mismatch && outOfRange(mismatch)) {
            problem = problems.create(AppProblem.VALIDATION_FAILED, locale);
            problem.setProperty("errors", List.of(rangeError(mismatch, locale)));
        } else if (ex instanceof HttpMessageNotReadableException unreadable) {
            problem = unreadableBody(unreadable, locale);
        } else {
            if (statusCode.is5xxServerError()) {
                log.error("request failed", ex);
            }
            problem = problems.create(AppProblem.forStatus(statusCode.value()), locale);
            problem.setStatus(statusCode.value());
        }
        HttpHeaders kept = new HttpHeaders();
        if (headers.getAllow() != null && !headers.getAllow().isEmpty()) {
            kept.setAllow(headers.getAllow());
        }
        return ResponseEntity.status(statusCode).headers(kept).contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem);
    }

    /** One entry per failed constraint, ordered by field and message (Bean Validation reports them in no order). */
    private List<Map<String, String>> fieldErrors(BindingResult result, Locale locale) {
        List<Map<String, String>> errors = new ArrayList<>();
        List<FieldError> failed = new ArrayList<>(result.getFieldErrors());
        failed.sort(Comparator.comparing(FieldError::getField).thenComparing(e -> String.valueOf(e.getCode())));
        for (FieldError error : failed) {
            Map<String, String> entry = new LinkedHashMap<>();
            entry.put("field", error.getField());
            entry.put("message", messages.getMessage(error, locale));
            errors.add(entry);
        }
        return errors;
    }

    /** A request parameter, path variable or header that failed its constraint: named as the request names it. */
    private List<Map<String, String>> parameterErrors(HandlerMethodValidationException invalid, Locale locale) {
        List<Map<String, String>> errors = new ArrayList<>();
        for (ParameterValidationResult result : invalid.getParameterValidationResults()) {
            RequestParam param = result.getMethodParameter().getParameterAnnotation(RequestParam.class);
            String name = param != null && !param.name().isEmpty() ? param.name() : result.getMethodParameter().getParameterName();
            for (MessageSourceResolvable error : result.getResolvableErrors()) {
                Map<String, String> entry = new LinkedHashMap<>();
                entry.put("field", name == null ? "" : name);
                entry.put("message", messages.getMessage(error, locale));
                errors.add(entry);
            }
        }
        return errors;
    }

    /**
     * A whole number too large or too small for the parameter's integer type ({@code limit=99999999999}):
     * a value out of range like {@code limit=101}, not text that is no number ({@code limit=lots}).
     */
    private static boolean outOfRange(MethodArgumentTypeMismatchException mismatch) {
        Class<?> type = mismatch.getRequiredType();
        return (type == int.class || type == Integer.class || type == long.class || type == Long.class
                || type == short.class || type == Short.class)
                && mismatch.getValue() instanceof String value && wholeNumber(value);
    }

    /** Whether Spring's conversion reads the text as a whole number of any size (decimal, {@code 0x} or {@code #} hexadecimal). */
    private static boolean wholeNumber(String value) {
        try {
            NumberUtils.parseNumber(value, BigInteger.class);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** The parameter's own bound ({@code @Max}/{@code @Min}) where it has the one that was passed, else "out of range". */
    private Map<String, String> rangeError(MethodArgumentTypeMismatchException mismatch, Locale locale) {
        boolean negative = StringUtils.trimAllWhitespace((String) mismatch.getValue()).startsWith("-");
        Max max = mismatch.getParameter().getParameterAnnotation(Max.class);
        Min min = mismatch.getParameter().getParameterAnnotation(Min.class);
        String message;
        if (!negative && max != null) {
            message = messages.getMessage("Max", new Object[] {mismatch.getName(), max.value()}, locale);
        } else if (negative && min != null) {
            message = messages.getMessage("Min", new Object[] {mismatch.getName(), min.value()}, locale);
        } else {
            message = messages.getMessage("OutOfRange", null, locale);
        }
        Map<String, String> entry = new LinkedHashMap<>();
        entry.put("field", mismatch.getName());
        entry.put("message", message);
        return entry;
    }

    /**
     * A body that could not be read: 400 {@code malformed-request} saying where. A value of the
     * wrong type names its field ({@code errors[].field}, as {@code validation-failed} does, in the
     * JSON's own path such as {@code items[0].quantity}) and the type it must have; text that is no
     * JSON gives the line and column where it breaks; a missing body says so. The value sent is
     * never repeated.
     */
    private ProblemDetail unreadableBody(HttpMessageNotReadableException unreadable, Locale locale) {
        ProblemDetail problem = problems.create(AppProblem.MALFORMED_REQUEST, locale);
        JacksonException cause = jacksonCause(unreadable);
        if (cause instanceof MismatchedInputException mismatch && !mismatch.getPath().isEmpty()) {
            Map<String, String> entry = new LinkedHashMap<>();
            entry.put("field", jsonPath(mismatch.getPath()));
            String expected = expectedType(mismatch.getTargetType());
            entry.put("message", expected == null
                    ? messages.getMessage("body.wrong-type", null, locale)
                    : messages.getMessage("body.expected." + expected, null, locale));
            problem.setDetail(messages.getMessage("body.field-unreadable", null, locale));
            problem.setProperty("errors", List.of(entry));
        } else if (cause instanceof MismatchedInputException) {
            problem.setDetail(messages.getMessage("body.shape", null, locale));
        } else if (cause instanceof StreamReadException syntax && syntax.getLocation() != null
                && syntax.getLocation().getLineNr() > 0) {
            problem.setDetail(messages.getMessage("body.not-json",
                    new Object[] {syntax.getLocation().getLineNr(), syntax.getLocation().getColumnNr()}, locale));
        } else if (cause == null && unreadable.getMessage() != null
                && unreadable.getMessage().startsWith("Required request body is missing")) {
            problem.setDetail(messages.getMessage("body.missing", null, locale));
        }
        return problem;
    }

    private static @Nullable JacksonException jacksonCause(Throwable thrown) {
        for (Throwable t = thrown.getCause(); t != null; t = t.getCause()) {
            if (t instanceof JacksonException jackson) {
                return jackson;
            }
        }
        return null;
    }

    /** {@code items[0].quantity}: property names joined by dots, array positions in brackets. */
    static String jsonPath(List<JacksonException.Reference> path) {
        StringBuilder out = new StringBuilder();
        for (JacksonException.Reference reference : path) {
            if (reference.getPropertyName() != null) {
                if (!out.isEmpty()) {
                    out.append('.');
                }
                out.append(reference.getPropertyName());
            } else if (reference.getIndex() >= 0) {
                out.append('[').append(reference.getIndex()).append(']');
            }
        }
        return out.toString();
    }

    /** The JSON type a Java type is read from, for the message; null when there is no plain answer. */
    static @Nullable String expectedType(@Nullable Class<?> type) {
        if (type == null) {
            return null;
        }
        if (type == int.class || type == long.class || type == short.class || type == byte.class
                || type == Integer.class || type == Long.class || type == Short.class || type == Byte.class
                || type == BigInteger.class) {
            return "integer";
        }
        if (type == double.class || type == float.class || Number.class.isAssignableFrom(type)) {
            return "number";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "boolean";
        }
        if (CharSequence.class.isAssignableFrom(type) || type.isEnum()) {
            return "text";
        }
        if (type.isArray() || java.util.Collection.class.isAssignableFrom(type)) {
            return "array";
        }
        return type.isPrimitive() || type.getName().startsWith("java.") ? null : "object";
    }

    private static ResponseEntity<ProblemDetail> respond(ProblemDetail problem, HttpHeaders headers) {
        return ResponseEntity.status(problem.getStatus()).headers(headers)
                .contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
    }
}
