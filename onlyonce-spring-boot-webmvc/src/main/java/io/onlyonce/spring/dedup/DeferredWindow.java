package io.onlyonce.spring.dedup;

import io.onlyonce.Fingerprint;
import io.onlyonce.spring.metrics.OutcomeRecorder;
import io.onlyonce.spring.http.OnlyOnceRejection;
import io.onlyonce.spring.http.ProblemType;
import io.onlyonce.window.WindowHit;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.util.Optional;

/**
 * A request window that {@link RequestDedupFilter} handed on to the handler instead of checking it:
 * the handler checks it in the same store call as its effect (with
 * {@code RedisAtomicExecutor}, {@code AtomicCall.Builder#window(fingerprint(), window())}), so that
 * a purchase costs one round trip instead of two. Which requests are deferred is the application's
 * choice ({@link Deferral}); the filter still fingerprints them as its rule says, and still gives
 * the window back when the request is refused as invalid input.
 *
 * <pre>{@code
 * DeferredWindow window = DeferredWindow.of(request).orElse(null);
 * AtomicCall.Builder call = AtomicCall.of(key, fingerprint, retention, effect);
 * if (window != null) {
 *     call.window(window.take(), window.window());
 * }
 * switch (atomic.run(call.build())) {
 *     case AtomicOutcome.InWindow repeated -> throw window.duplicate(repeated.hit());
 *     ...
 * }
 * }</pre>
 *
 * <p>A deferred window that its handler never takes is not checked at all (the request was refused
 * before anything ran, or the handler does not know of it); the filter logs the latter once.
 */
public final class DeferredWindow {

    /** The request attribute that holds the deferred window. */
    public static final String ATTRIBUTE = DeferredWindow.class.getName();

    /**
     * Which requests of a de-dup rule have their window checked by their handler. Declare one as a
     * bean; without one, the filter checks every window itself.
     */
    @FunctionalInterface
    public interface Deferral {

        /** Whether the handler of {@code request} checks its window itself. */
        boolean defers(HttpServletRequest request);
    }

    private final Fingerprint fingerprint;
    private final Duration window;
    private final String endpoint;
    private final OutcomeRecorder recorder;
    private volatile boolean taken;
    private volatile boolean duplicate;

    DeferredWindow(Fingerprint fingerprint, Duration window, String endpoint, OutcomeRecorder recorder) {
        this.fingerprint = fingerprint;
        this.window = window;
        this.endpoint = endpoint;
        this.recorder = recorder;
    }

    /** The window the de-dup filter deferred for this request, if it did. */
    public static Optional<DeferredWindow> of(HttpServletRequest request) {
        return Optional.ofNullable((DeferredWindow) request.getAttribute(ATTRIBUTE));
    }

    /** Takes the window over: the handler checks it. @return the request's fingerprint in the window */
    public Fingerprint take() {
        taken = true;
        return fingerprint;
    }

    /** The window of the request's rule. */
    public Duration window() {
        return window;
    }

    /**
     * The request was a repeat within the window: counted as the filter counts it
     * ({@code gateway}/{@code window_duplicate}), and the refusal to throw, 429
     * {@code duplicate-request} with {@code Retry-After}, which {@code OnlyOnceFilter.answer} writes.
     */
    public OnlyOnceRejection duplicate(WindowHit hit) {
        duplicate = true;
        recorder.record(OutcomeRecorder.LAYER_GATEWAY, "window_duplicate", endpoint);
        return OnlyOnceRejection.problem(ProblemType.DUPLICATE_REQUEST, Duration.ofSeconds(hit.retryAfterSeconds()));
    }

    Fingerprint fingerprint() {
        return fingerprint;
    }

    String endpoint() {
        return endpoint;
    }

    boolean taken() {
        return taken;
    }

    /** Whether this request opened the window: taken, and not a repeat. */
    boolean opened() {
        return taken && !duplicate;
    }
}
