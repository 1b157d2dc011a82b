/**
 * The message layer in a Spring Boot application: the {@link io.onlyonce.spring.messaging.TransactionalOutbox}
 * that records messages in the current transaction, idempotent consumers declared as
 * {@link io.onlyonce.spring.messaging.ConsumerDefinition} beans, the relay and the transport
 * (RabbitMQ, Kafka or in-process) run by the auto-configuration; {@code @KafkaListener} methods that
 * take effect once are in {@code io.onlyonce.spring.messaging.kafka} ({@code onlyonce-spring-boot-kafka}).
 */
@NullMarked
package io.onlyonce.spring.messaging;

import org.jspecify.annotations.NullMarked;
