package io.onlyonce.messaging;

/**
 * A consumer's side effect outside the database (a call to another service, a mail, a Redis
 * update), run by a {@link StoreIdempotentConsumer}.
 *
 * <p>Throw {@link PermanentMessageFailure} for a message that can never succeed (dead-lettered at
 * once); any other exception is retried a bounded number of times, then dead-lettered. Make the
 * effect itself idempotent where you can (pass the message id on as the downstream service's
 * idempotency key): the store variant's guarantee is weaker than the inbox's.
 */
@FunctionalInterface
public interface SideEffectHandler {

    /** Runs the side effect of {@code message}. */
    void handle(InboundMessage message) throws Exception;
}
