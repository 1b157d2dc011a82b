package io.onlyonce.messaging.kafka;

/**
 * The Kafka record headers that {@link KafkaMessageTransport} writes and
 * {@link IdempotentKafkaConsumer} reads. Every value is UTF-8 text.
 */
public final class KafkaMessageHeaders {

    /** The message id ({@link io.onlyonce.messaging.OutboxMessage#id()}): what the inbox drops duplicates by. */
    public static final String MESSAGE_ID = "message-id";

    /** The message type: the outbox message's routing key, matched by a consumer's message-type pattern. */
    public static final String MESSAGE_TYPE = "message-type";

    /** The content type of the body: {@value #JSON}. */
    public static final String CONTENT_TYPE = "content-type";

    /**
     * The outbox header that sets the record key (for example the business id, so that every
     * message of one business entity goes to one partition, in order). Not sent as a Kafka header;
     * without it, the key is the message id.
     */
    public static final String KEY = "key";

    /** The value of {@link #CONTENT_TYPE}. */
    public static final String JSON = "application/json";

    private KafkaMessageHeaders() {
    }
}
