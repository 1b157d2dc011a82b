package io.onlyonce.spring.reactive;

import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.engine.Outcome;
import io.onlyonce.redis.AtomicCall;
import io.onlyonce.redis.AtomicOutcome;
import io.onlyonce.redis.RedisEffect;
import io.onlyonce.spring.http.AtomicAnswers;
import io.onlyonce.spring.http.IdempotentRequests;
import io.onlyonce.spring.http.OnlyOnceRejection;
import io.onlyonce.spring.method.ObservedDurations;
import io.onlyonce.spring.metrics.OutcomeRecorder;
import io.onlyonce.spring.resilience.CircuitBreakerAtomicExecutor;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenService;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.springframework.http.ResponseEntity;
import reactor.core.publisher.Mono;

/**
 * An {@code @Idempotent} WebFlux handler's effect that is a Redis script, run in one script call
 * with the request's record and its one-time token ({@code RedisAtomicExecutor}), without blocking:
 * the reactive counterpart of WebMVC's {@code AtomicIdempotency}. Declare it as a parameter of the
 * annotated handler method; OnlyOnce verifies the key or token, resolves the record's key and the
 * request's fingerprint (as the two-step path computes them) and binds them here instead of claiming
 * the key, and the method runs {@link #run} once:
 *
 * <pre>{@code
 * @PostMapping("/api/sales/{saleId}/purchases")
 * @Idempotent
 * Mono<ResponseEntity<byte[]>> buy(@PathVariable long saleId, ReactiveAtomicIdempotency atomic) {
 *     return atomic.run(RESERVE, call -> call.keys(stockKey(saleId)).args(userId)).map(outcome ->
 *             outcome instanceof AtomicOutcome.Completed done
 *                     ? ReactiveAtomicIdempotency.respond(done.response())
 *                     : soldOut(((AtomicOutcome.Declined) outcome).text(0)));   // the application's own answer
 * }
 * }</pre>
 *
 * <p>{@link #run} emits {@link AtomicOutcome.Completed} (the effect ran; its response is stored
 * and is what a repeat replays) or {@link AtomicOutcome.Declined} (the effect did not happen;
 * nothing is stored). Every other outcome is answered by OnlyOnce exactly as the two-step reactive
 * path answers it, and the {@code Mono} fails with an {@link OnlyOnceRejection} (which the handler
 * need not handle: whatever the handler or an exception handler makes of it, OnlyOnce's answer is
 * sent): a completed record is replayed byte for byte with {@code Idempotent-Replayed: true}, a
 * record in progress is 409 with {@code Retry-After}, another request under the key 422, a used
 * token 409 {@code duplicate-submission} with the first answer (400 {@code idempotency-token-expired}
 * past its expiry), Redis that cannot be reached, that does not answer within
 * {@code onlyonce.redis.command-timeout}, or an open circuit 503 {@code idempotency-store-unavailable}.
 * Each is counted in OnlyOnce's metrics as the two-step path counts it. The handler's answer is
 * held back until it ends. The effect runs in Redis, so there is no STRICT/PERMISSIVE choice:
 * without Redis nothing runs. Needs {@code onlyonce.store=redis}, which registers the argument; a
 * key is required (an optional one is refused as missing). One instance per request.
 */
public final class ReactiveAtomicIdempotency implements SelfDeciding {

    private final CircuitBreakerAtomicExecutor executor;
    private final TokenService tokens;
    private final OutcomeRecorder recorder;
    private final ObservedDurations durations;
    private final @Nullable SelfDecidedRequest request;

    ReactiveAtomicIdempotency(CircuitBreakerAtomicExecutor executor, TokenService tokens, OutcomeRecorder recorder,
            ObservedDurations durations, @Nullable SelfDecidedRequest request) {
        this.executor = executor;
        this.tokens = tokens;
        this.recorder = recorder;
        this.durations = durations;
        this.request = request;
    }

    /**
     * Runs {@code effect} with the request's record and token in one script call, when subscribed.
     * A method may run again after a decline it has remedied, with the same record and token.
     *
     * @param call adds the effect's own keys and arguments (and may set
     *     {@link AtomicCall.Builder#consumeTokenOnDecline(boolean)} or {@link AtomicCall.Builder#recordSlot(String)})
     * @return {@link AtomicOutcome.Completed} or {@link AtomicOutcome.Declined}; an
     *     {@link OnlyOnceRejection} for every other outcome (OnlyOnce answers it); an
     *     {@link IllegalStateException} when the method is not {@code @Idempotent} or the effect failed
     */
    public Mono<AtomicOutcome> run(RedisEffect effect, Consumer<AtomicCall.Builder> call) {
        return Mono.defer(() -> {
            SelfDecidedRequest bound = request;
            if (bound == null) {
                return Mono.error(new IllegalStateException("ReactiveAtomicIdempotency is bound to the request by"
                        + " @Idempotent: annotate the handler method"));
            }
            AtomicCall.Builder builder = AtomicCall.of(bound.key(), bound.fingerprint(), bound.config().retention(), effect);
            OneTimeToken token = bound.token();
            if (token != null) {
                builder.token(token);
            }
            call.accept(builder);
            AtomicCall built = builder.build();
            return Mono.fromCompletionStage(() -> executor.runAsync(built))
                    .onErrorMap(CompletionException.class, e -> e.getCause() == null ? e : e.getCause())
                    .onErrorResume(StoreUnavailableException.class,
                            e -> refuse(bound, AtomicAnswers.storeUnavailable(bound.config())))
                    .flatMap(outcome -> decide(bound, outcome));
        });
    }

    private Mono<AtomicOutcome> decide(SelfDecidedRequest bound, AtomicOutcome outcome) {
        if (outcome instanceof AtomicOutcome.Completed || outcome instanceof AtomicOutcome.Declined) {
            recorder.record(OutcomeRecorder.LAYER_BUSINESS, "executed", bound.endpoint());
            return Mono.just(outcome);
        }
        if (outcome instanceof AtomicOutcome.InWindow) {
            return Mono.error(new IllegalStateException("a request window answered a call without one"));
        }
        return refuse(bound, AtomicAnswers.refusal(outcome, bound.fingerprint(), bound.config(), tokens, bound.token()));
    }

    /** Leaves the answer to OnlyOnce, which counts it; fails the handler's {@code Mono} meanwhile. */
    private Mono<AtomicOutcome> refuse(SelfDecidedRequest bound, AtomicAnswers.Refusal refusal) {
        bound.refuse(refusal);
        if (refusal instanceof AtomicAnswers.Refused refused) {
            return Mono.error(refused.rejection());
        }
        Outcome decided = ((AtomicAnswers.Decided) refusal).outcome();
        return Mono.error(IdempotentRequests.refusal(decided, decided instanceof Outcome.InProgress inProgress
                ? durations.retryAfter(bound.endpoint(), inProgress)
                : java.time.Duration.ZERO));
    }

    /** A stored response as the handler's answer: the first answer and every replay carry the same bytes. */
    public static ResponseEntity<byte[]> respond(StoredResponse response) {
        return AtomicAnswers.respond(response);
    }
}
