package io.onlyonce.spring.atomic;

import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.redis.AtomicCall;
import io.onlyonce.redis.AtomicOutcome;
import io.onlyonce.redis.RedisEffect;
import io.onlyonce.spring.dedup.DeferredWindow;
import io.onlyonce.spring.method.ObservedDurations;
import io.onlyonce.spring.metrics.OutcomeRecorder;
import io.onlyonce.spring.resilience.CircuitBreakerAtomicExecutor;
import io.onlyonce.spring.http.AtomicAnswers;
import io.onlyonce.spring.http.IdempotentRequests;
import io.onlyonce.spring.http.OnlyOnceRejection;
import io.onlyonce.spring.web.SelfDecided;
import io.onlyonce.engine.Outcome;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenService;
import java.time.Duration;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.springframework.http.ResponseEntity;

/**
 * An {@code @Idempotent} handler's effect that is a Redis script, run in one script call with the
 * request's record, its one-time token and its request window ({@code RedisAtomicExecutor}). Declare
 * it as a parameter of the handler method; OnlyOnce verifies the key or token, resolves the record's
 * key and binds it here instead of claiming it, and the method calls {@link #run} once:
 *
 * <pre>{@code
 * @PostMapping("/api/sales/{saleId}/purchases")
 * @Idempotent(strategy = Idempotent.Strategy.TOKEN, scope = "sale:{saleId}")
 * ResponseEntity<byte[]> buy(@PathVariable long saleId, AtomicIdempotency atomic) {
 *     AtomicOutcome outcome = atomic.run(RESERVE, call -> call.keys(stockKey(saleId)).args(userId));
 *     if (outcome instanceof AtomicOutcome.Declined declined) {
 *         throw new SoldOutException(declined.text(0));      // the application's own answer
 *     }
 *     return AtomicIdempotency.respond(((AtomicOutcome.Completed) outcome).response());
 * }
 * }</pre>
 *
 * <p>{@link #run} answers {@link AtomicOutcome.Completed} (the effect ran; its response is stored
 * and is what a repeat replays) or {@link AtomicOutcome.Declined} (the effect did not happen; nothing
 * is stored). Every other outcome is the annotation's own answer, thrown as an
 * {@link OnlyOnceRejection} that {@code OnlyOnceFilter} writes past the application's converters and
 * advice: a completed record is replayed byte for byte with {@code Idempotent-Replayed}, a record in
 * progress is 409 with {@code Retry-After}, another request under the key 422, a used token 409
 * {@code duplicate-submission} with the first answer (400 {@code idempotency-token-expired} past its
 * expiry), a repeat within the request window 429 (when the de-dup filter deferred it:
 * {@link DeferredWindow}), Redis that cannot be reached or an open circuit 503
 * {@code idempotency-store-unavailable}. Each is counted in OnlyOnce's metrics as the two-step
 * path counts it. The effect runs in Redis, so there is no STRICT/PERMISSIVE choice: without Redis
 * nothing runs. One instance per request; not thread-safe.
 */
public final class AtomicIdempotency implements SelfDecided {

    private final CircuitBreakerAtomicExecutor executor;
    private final TokenService tokens;
    private final OutcomeRecorder recorder;
    private final ObservedDurations durations;
    private @Nullable Binding binding;
    private boolean windowTaken;

    AtomicIdempotency(CircuitBreakerAtomicExecutor executor, TokenService tokens, OutcomeRecorder recorder,
            ObservedDurations durations) {
        this.executor = executor;
        this.tokens = tokens;
        this.recorder = recorder;
        this.durations = durations;
    }

    @Override
    public void bind(Binding binding) {
        this.binding = binding;
    }

    /**
     * Runs {@code effect} with the request's record, token and deferred window in one script call.
     *
     * @param call adds the effect's own keys and arguments (and may set
     *     {@link AtomicCall.Builder#consumeTokenOnDecline(boolean)} or {@link AtomicCall.Builder#recordSlot(String)})
     * A method may run again after a decline it has remedied (the data the effect needs was not
     * loaded yet): with the same record and token, and without the request window, whose first hit
     * the first run made.
     *
     * @return {@link AtomicOutcome.Completed} or {@link AtomicOutcome.Declined}
     * @throws OnlyOnceRejection for every other outcome, and 503 when Redis cannot decide
     * @throws IllegalStateException when the method is not {@code @Idempotent}, or the effect failed
     */
    public AtomicOutcome run(RedisEffect effect, Consumer<AtomicCall.Builder> call) {
        Binding bound = binding;
        if (bound == null) {
            throw new IllegalStateException("AtomicIdempotency is bound to the request by @Idempotent: annotate the handler method");
        }
        try {
            return decide(bound, effect, call);
        } catch (OnlyOnceRejection rejection) {
            throw bound.exchange().answer(rejection);
        }
    }

    private AtomicOutcome decide(Binding bound, RedisEffect effect, Consumer<AtomicCall.Builder> call) {
        AtomicCall.Builder builder = AtomicCall.of(bound.key(), bound.fingerprint(), bound.config().retention(), effect);
        OneTimeToken token = bound.token();
        if (token != null) {
            builder.token(token);
        }
        // a second run (after a decline the method has remedied) checks no window: the first one's hit opened it
        DeferredWindow window = windowTaken ? null : DeferredWindow.of(bound.request()).orElse(null);
        if (window != null) {
            builder.window(window.take(), window.window());
            windowTaken = true;
        }
        call.accept(builder);
        AtomicOutcome outcome;
        try {
            outcome = executor.run(builder.build());
        } catch (StoreUnavailableException e) {
            throw refuse(bound, AtomicAnswers.storeUnavailable(bound.config()));
        }
        if (outcome instanceof AtomicOutcome.Completed || outcome instanceof AtomicOutcome.Declined) {
            recorder.record(OutcomeRecorder.LAYER_BUSINESS, "executed", bound.endpoint());
            return outcome;
        }
        if (outcome instanceof AtomicOutcome.InWindow repeated) {
            if (window == null) {
                throw new IllegalStateException("a request window answered a call without one");
            }
            throw window.duplicate(repeated.hit());
        }
        throw refuse(bound, AtomicAnswers.refusal(outcome, bound.fingerprint(), bound.config(), tokens, token));
    }

    /** Counts the refusal in OnlyOnce's metrics, as the two-step path counts it. */
    private OnlyOnceRejection refuse(Binding bound, AtomicAnswers.Refusal refusal) {
        if (refusal instanceof AtomicAnswers.Refused refused) {
            recorder.record(OutcomeRecorder.LAYER_BUSINESS, refused.metric(), bound.endpoint());
            return refused.rejection();
        }
        Outcome decided = ((AtomicAnswers.Decided) refusal).outcome();
        recorder.record(OutcomeRecorder.LAYER_BUSINESS, IdempotentRequests.metricName(decided), bound.endpoint());
        return IdempotentRequests.refusal(decided, decided instanceof Outcome.InProgress inProgress
                ? durations.retryAfter(bound.endpoint(), inProgress)
                : Duration.ZERO);
    }

    /** A stored response as the handler's answer: the first answer and every replay carry the same bytes. */
    public static ResponseEntity<byte[]> respond(StoredResponse response) {
        return AtomicAnswers.respond(response);
    }
}
