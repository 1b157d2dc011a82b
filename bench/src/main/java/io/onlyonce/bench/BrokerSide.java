package io.onlyonce.bench;

import io.onlyonce.messaging.MessageTransport;
import io.onlyonce.messaging.OutboxMessage;
import java.util.List;
import javax.sql.DataSource;

/**
 * One broker's part of {@link MessagingBench}: the transport the relay publishes through, the raw
 * confirmed publish it is compared with, and the two consumers (idempotent, plain) that drain the
 * same delivery stream. {@link MessagingBench} owns the database, the timing and the checks.
 */
interface BrokerSide extends AutoCloseable {

    /** The name of {@code -Dbench.broker}: rabbit or kafka. */
    String name();

    /** What the raw publish does, for the report. */
    String rawDescription();

    /** What the plain consumer does, for the report. */
    String plainDescription();

    /** What the idempotent consumer is, for the report. */
    String idempotentDescription();

    /** The transport the relay publishes through. */
    MessageTransport transport();

    /** The message {@code id} as the producer side publishes it (destination, payload, X-Request-ID). */
    OutboxMessage message(String id);

    /** The message {@code id} of the consumer side's stream, to the idempotent or the plain consumer's destination. */
    OutboxMessage delivery(String id, boolean idempotent);

    /**
     * Publishes {@code messages} the best raw way of this broker with the guarantees of the transport
     * (every message confirmed by the broker), in batches of {@code batch}; returns when all are confirmed.
     */
    void rawPublish(List<OutboxMessage> messages, int batch) throws Exception;

    /** Fails unless the producer side's destination received {@code count} messages since the last call; then forgets them. */
    void expectPublished(long count) throws Exception;

    /** A counter the producer notes show per message ({@link #counterName()}), or 0. */
    long counter();

    /** What {@link #counter()} counts ("channels opened"), or null when it counts nothing. */
    String counterName();

    /** Loads {@code stream} into the consumer's destination before a consumer phase (not measured). */
    void preload(List<OutboxMessage> stream, boolean idempotent) throws Exception;

    /**
     * Drains the preloaded {@code deliveries} with the idempotent consumer or the plain one, each
     * writing one effect row per processed message ({@link MessagingBench#INSERT_EFFECT}).
     */
    Drain drain(boolean idempotent, int deliveries, Settings settings) throws Exception;

    /** What a consumer phase needs from the bench. */
    record Settings(DataSource dataSource, int consumers, int prefetch) {
    }

    /**
     * @param seconds from the consumers' start until every delivery was settled
     * @param processed the idempotent consumer's processed messages (-1 for the plain one)
     * @param duplicates the idempotent consumer's dropped duplicates (-1 for the plain one)
     * @param failed deliveries that failed (dead-lettered, or a failed insert of the plain one)
     */
    record Drain(double seconds, long processed, long duplicates, long failed) {
    }
}
