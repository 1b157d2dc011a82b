package io.onlyonce.messaging.kafka;

/**
 * The headers {@link IdempotentKafkaConsumer} adds to a record it dead-letters. The dead letter
 * keeps the record's key, value and all its own headers ({@code message-id}, {@code message-type},
 * {@code X-Request-ID}, ...); earlier headers of this prefix are replaced. Every value is UTF-8 text.
 */
public final class KafkaDeadLetterHeaders {

    /** Why it was dead-lettered: the consumer's reason, "retries exhausted after N deliveries: …",
     * "missing message id", "malformed message id (…)" or "payload is not UTF-8". */
    public static final String REASON = "x-onlyonce-dead-reason";

    /** The consumer that gave up on it (the {@link io.onlyonce.messaging.MessageConsumer}'s name). */
    public static final String CONSUMER = "x-onlyonce-consumer";

    /** The topic it was consumed from. */
    public static final String ORIGINAL_TOPIC = "x-onlyonce-original-topic";

    /** The partition it was consumed from. */
    public static final String ORIGINAL_PARTITION = "x-onlyonce-original-partition";

    /** Its offset in that partition. */
    public static final String ORIGINAL_OFFSET = "x-onlyonce-original-offset";

    /** The number of the delivery that dead-lettered it (1 for the first), counted in memory by the consumer. */
    public static final String DELIVERIES = "x-onlyonce-deliveries";

    /** When it was dead-lettered, ISO-8601 UTC. */
    public static final String DEAD_AT = "x-onlyonce-dead-at";

    /** The prefix of all of the above. */
    public static final String PREFIX = "x-onlyonce-";

    private KafkaDeadLetterHeaders() {
    }
}
