package io.onlyonce.bench.peers;

/**
 * A fresh topic (Kafka) or exchange with its queue (RabbitMQ) for one contender's run, with a plain
 * consumer on it; closing stops the consumer and deletes the topic or queue.
 */
public interface Destination extends AutoCloseable {

    /** The routing key the RabbitMQ exchange binds its queue with. */
    String ROUTING_KEY = "order.created";

    /** {@code kafka} or {@code rabbit}. */
    String broker();

    /** The topic, or the exchange. */
    String name();

    /** Starts the plain consumer, which records every delivery in {@code receipts}. */
    void consume(Receipts receipts) throws Exception;

    /** Published straight to the broker, acknowledged: the raw contender. */
    RawPublisher rawPublisher() throws Exception;

    /** Publishes straight to the broker; {@link #awaitAcks()} fails unless every message was acknowledged. */
    interface RawPublisher extends AutoCloseable {

        void publish(OrderPlaced event) throws Exception;

        void awaitAcks() throws Exception;
    }
}
