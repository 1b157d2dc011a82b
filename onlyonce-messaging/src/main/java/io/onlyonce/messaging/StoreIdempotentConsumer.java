package io.onlyonce.messaging;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import io.onlyonce.engine.Admission;
import io.onlyonce.engine.Execution;
import io.onlyonce.engine.IdempotencyConfig;
import io.onlyonce.engine.IdempotencyEngine;
import io.onlyonce.engine.Outcome;
import io.onlyonce.engine.StoreFailurePolicy;
import io.onlyonce.messaging.internal.ShortError;
import io.onlyonce.store.IdempotencyStore;
import java.util.Objects;

/**
 * An idempotent consumer for side effects OUTSIDE the database, keyed in an
 * {@link IdempotencyStore} (Redis in practice; the common {@code SET NX} with a TTL, done
 * right) through the {@link IdempotencyEngine}: the key is scope {@code consumer:<name>}, name the
 * message id.
 *
 * <p>Per delivery ({@link #process}): claim the key with a lease ({@link ConsumerConfig#lease()});
 * run the {@link SideEffectHandler}; complete the key, kept for {@link ConsumerConfig#retention()},
 * so redeliveries within it are {@link Delivery#DUPLICATE}. A failure releases the key (after the
 * in-process retries, or at once for a {@link PermanentMessageFailure}) and dead-letters the
 * message, so that a later re-publication runs it. A key held by another delivery is
 * {@link Delivery.Retry RETRY}; so is a store that cannot be reached (nothing ran).
 *
 * <p><b>Weaker than {@link IdempotentConsumer}.</b> The key and the effect cannot commit together:
 * <ul>
 *   <li>a crash after the effect but before the key is completed leaves the key IN_PROGRESS until
 *       its lease passes; the broker redelivers the unacknowledged message, and once the lease has
 *       passed it is <em>processed again</em> (the effect happens twice);
 *   <li>a crash before the effect holds the key until the lease ends: redeliveries in the meantime
 *       are RETRY, the message is delayed by up to one lease, never lost (it is acknowledged only
 *       after the effect);
 *   <li>a key that expires (retention) or that the store loses (Redis failover without
 *       persistence) lets a later redelivery run again.
 * </ul>
 * Use the inbox wherever the effect can be written to the database; use this for effects that
 * cannot, and make them idempotent downstream where possible.
 *
 * <p>Thread-safe.
 */
public final class StoreIdempotentConsumer implements MessageConsumer {

    /** The prefix of the keys' scope, followed by the consumer's name. */
    public static final String SCOPE_PREFIX = "consumer:";

    private static final Fingerprint MESSAGE = Fingerprint.of("onlyonce-message");
    private static final StoredResponse DONE = StoredResponse.of(200, new byte[0]);
    private static final System.Logger LOG = System.getLogger(StoreIdempotentConsumer.class.getName());

    private final String name;
    private final String scope;
    private final IdempotencyEngine engine;
    private final SideEffectHandler handler;
    private final ConsumerConfig config;
    private final IdempotencyConfig keyConfig;
    private final ConsumerSupport support;

    /**
     * @param consumerName the consumer's name: 1 to 255 visible ASCII characters, the same on every
     *     instance
     * @param engine the engine on the shared store (its listener sees every claim)
     * @throws IllegalArgumentException when the name is invalid
     */
    public StoreIdempotentConsumer(String consumerName, IdempotencyEngine engine, SideEffectHandler handler,
            ConsumerConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        this.support = new ConsumerSupport(consumerName, config);
        this.name = consumerName;
        this.scope = SCOPE_PREFIX + consumerName;
        this.engine = Objects.requireNonNull(engine, "engine");
        this.handler = Objects.requireNonNull(handler, "handler");
        this.keyConfig = IdempotencyConfig.custom().lease(config.lease()).retention(config.retention())
                .releaseOnException(true).storeFailurePolicy(StoreFailurePolicy.STRICT).build();
    }

    /** A consumer on {@code store}, through an engine without a listener. */
    public StoreIdempotentConsumer(String consumerName, IdempotencyStore store, SideEffectHandler handler,
            ConsumerConfig config) {
        this(consumerName, IdempotencyEngine.builder(store).build(), handler, config);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public ConsumerStats stats() {
        return support.stats();
    }

    /** The store key of a message id: scope {@code consumer:<name>}, name the id. */
    public IdempotencyKey key(String messageId) {
        return new IdempotencyKey(scope, messageId);
    }

    @Override
    public Delivery process(InboundMessage message) {
        Objects.requireNonNull(message, "message");
        String invalid = ConsumerSupport.invalidId(message.id());
        if (invalid != null) {
            return support.deadLetter(invalid);
        }
        String id = Objects.requireNonNull(message.id());
        ConsumerSupport.MdcScope mdc = ConsumerSupport.mdc(message);
        try {
            return run(message, id);
        } finally {
            mdc.close();
        }
    }

    private Delivery run(InboundMessage message, String id) {
        Admission admission = engine.admit(key(id), MESSAGE, keyConfig);
        if (admission instanceof Admission.Decided decided) {
            Outcome outcome = decided.outcome();
            if (outcome instanceof Outcome.InProgress inProgress) {
                return support.requeue("in progress in another delivery; retry after " + inProgress.retryAfter());
            }
            if (outcome instanceof Outcome.StoreUnavailable unavailable) {
                return support.requeue("idempotency store unavailable: " + ShortError.of(unavailable.cause()));
            }
            return support.duplicate();
        }
        Execution execution = ((Admission.Admitted) admission).execution();
        for (int attempt = 1; ; attempt++) {
            try {
                handler.handle(message);
            } catch (Exception e) {
                PermanentMessageFailure permanent = ConsumerSupport.permanent(e);
                if (permanent != null) {
                    execution.fail(e);
                    return support.deadLetter(ConsumerSupport.reason(permanent));
                }
                if (attempt >= config.maxAttempts()) {
                    execution.fail(e);
                    return support.deadLetter(ConsumerSupport.attemptsFailed(attempt, ShortError.of(e)));
                }
                if (!support.awaitRetry(attempt)) {
                    execution.fail(e);
                    return support.requeue("interrupted");
                }
                continue;
            }
            Outcome.Executed done = execution.complete(DONE);
            if (done.recording() != Outcome.Recording.STORED) {
                // the effect ran: acknowledge it whatever became of the key, or it would run again at once
                LOG.log(System.Logger.Level.WARNING, "consumer {0}: message {1} processed, but its key was not kept ({2});"
                        + " a redelivery after the lease may process it again", name, id, done.recording());
            }
            return support.processed();
        }
    }

    @Override
    public String toString() {
        return "StoreIdempotentConsumer[" + name + "]";
    }
}
