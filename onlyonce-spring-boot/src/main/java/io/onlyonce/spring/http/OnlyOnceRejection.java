package io.onlyonce.spring.http;

import io.onlyonce.StoredResponse;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Raised before a protected handler runs, when the request must not execute: a problem to answer,
 * or a stored response to replay. Answered by the platform module's handler
 * ({@code io.onlyonce.spring.web.OnlyOnceExceptionHandler} on WebMVC); carries no stack trace
 * (it is control flow, not an error).
 */
public final class OnlyOnceRejection extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final @Nullable ProblemType problem;
    private final transient @Nullable StoredResponse replay;
    private final @Nullable Duration retryAfter;
    private final transient Map<String, Object> properties;

    private OnlyOnceRejection(@Nullable ProblemType problem, @Nullable StoredResponse replay,
            @Nullable Duration retryAfter, Map<String, Object> properties) {
        super(problem == null ? "replay" : problem.slug(), null, false, false);
        this.problem = problem;
        this.replay = replay;
        this.retryAfter = retryAfter;
        this.properties = Map.copyOf(properties);
    }

    public static OnlyOnceRejection problem(ProblemType problem) {
        return new OnlyOnceRejection(problem, null, null, Map.of());
    }

    public static OnlyOnceRejection problem(ProblemType problem, @Nullable Duration retryAfter) {
        return new OnlyOnceRejection(problem, null, retryAfter, Map.of());
    }

    public static OnlyOnceRejection problem(ProblemType problem, Map<String, Object> properties) {
        return new OnlyOnceRejection(problem, null, null, properties);
    }

    public static OnlyOnceRejection replay(StoredResponse response) {
        return new OnlyOnceRejection(null, response, null, Map.of());
    }

    /** The problem to answer; null for a replay. */
    public @Nullable ProblemType problemType() {
        return problem;
    }

    /** The stored response to replay; null for a problem. */
    public @Nullable StoredResponse replayedResponse() {
        return replay;
    }

    public @Nullable Duration retryAfter() {
        return retryAfter;
    }

    /** Extra members of the problem object. */
    public Map<String, Object> properties() {
        return properties;
    }
}
