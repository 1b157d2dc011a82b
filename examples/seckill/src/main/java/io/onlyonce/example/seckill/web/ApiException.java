package io.onlyonce.example.seckill.web;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A business rule said no: answered as the problem {@link #problem()}, with {@link #properties()}
 * as extra members (for example the existing {@code orderNo}). Control flow, so no stack trace.
 */
public class ApiException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final AppProblem problem;
    private final transient Map<String, Object> properties;
    private final transient Object[] arguments;
    private @Nullable Long retryAfterSeconds;

    public ApiException(AppProblem problem) {
        this(problem, Map.of());
    }

    public ApiException(AppProblem problem, Map<String, Object> properties, Object... arguments) {
        super(problem.slug(), null, false, false);
        this.problem = problem;
        this.properties = new LinkedHashMap<>(properties);
        this.arguments = arguments.clone();
    }

    /** A problem about one order, whose number is both the message argument and the {@code orderNo} member. */
    public static ApiException aboutOrder(AppProblem problem, String orderNo) {
        return new ApiException(problem, Map.of("orderNo", orderNo), orderNo);
    }

    /** This problem answered with {@code Retry-After: seconds}. */
    public ApiException retryAfter(long seconds) {
        this.retryAfterSeconds = Math.max(1, seconds);
        return this;
    }

    /** The {@code Retry-After} in seconds, or null for none. */
    public @Nullable Long retryAfterSeconds() {
        return retryAfterSeconds;
    }

    public AppProblem problem() {
        return problem;
    }

    public Map<String, Object> properties() {
        return properties;
    }

    public Object[] arguments() {
        return arguments.clone();
    }
}
