/**
 * The Kafka transport of the message layer, on the Apache Kafka client (no Spring).
 *
 * <ul>
 *   <li>{@link io.onlyonce.messaging.kafka.KafkaMessageTransport}: publishes the relay's batches on an
 *       idempotent producer ({@code acks=all}) and completes each message's future on the broker's
 *       acknowledgement.</li>
 *   <li>{@link io.onlyonce.messaging.kafka.KafkaTopics}: creates a topic and its dead-letter topic.</li>
 *   <li>{@link io.onlyonce.messaging.kafka.IdempotentKafkaConsumer}: puts a
 *       {@link io.onlyonce.messaging.MessageConsumer} (the inbox) on a topic, commits offsets only for
 *       records whose outcome is final, and dead-letters to {@code <topic>.DLT}.</li>
 * </ul>
 */
@NullMarked
package io.onlyonce.messaging.kafka;

import org.jspecify.annotations.NullMarked;
