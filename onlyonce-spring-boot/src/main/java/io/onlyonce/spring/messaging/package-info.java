/**
 * The message layer in a Spring Boot application: the {@link io.onlyonce.spring.messaging.TransactionalOutbox}
 * that records messages in the current transaction, idempotent consumers declared as
 * {@link io.onlyonce.spring.messaging.ConsumerDefinition} beans, the relay and the transport
 * (RabbitMQ or in-process) run by the auto-configuration.
 */
@NullMarked
package io.onlyonce.spring.messaging;

import org.jspecify.annotations.NullMarked;
