package io.onlyonce.messaging.rabbit;

/**
 * The headers {@link IdempotentRabbitListener} adds to a message it dead-letters. The message keeps
 * its body, its {@code message-id}, its content type and all its own headers.
 */
public final class DeadLetterHeaders {

    /** Why it was dead-lettered: the processor's reason, "retries exhausted after N deliveries: …",
     * "missing message id", "malformed message id" or "payload is not UTF-8". */
    public static final String REASON = "x-onlyonce-dead-reason";

    /** The consumer that gave up on it (the name given to the listener). */
    public static final String CONSUMER = "x-onlyonce-consumer";

    /** The exchange it had been published to. */
    public static final String ORIGINAL_EXCHANGE = "x-onlyonce-original-exchange";

    /** The routing key it had been published with. */
    public static final String ORIGINAL_ROUTING_KEY = "x-onlyonce-original-routing-key";

    /** The queue it was consumed from. */
    public static final String ORIGINAL_QUEUE = "x-onlyonce-original-queue";

    /** The number of the delivery that dead-lettered it (1 for the first). */
    public static final String DELIVERIES = "x-onlyonce-deliveries";

    /** When it was dead-lettered, ISO-8601 UTC. */
    public static final String DEAD_AT = "x-onlyonce-dead-at";

    /** The prefix of all of the above: stripped when a dead letter is replayed. */
    public static final String PREFIX = "x-onlyonce-";

    private DeadLetterHeaders() {
    }
}
