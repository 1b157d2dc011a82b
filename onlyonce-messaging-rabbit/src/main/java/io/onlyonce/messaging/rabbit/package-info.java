/**
 * The RabbitMQ transport of the message layer, on Spring AMQP.
 *
 * <ul>
 *   <li>{@link io.onlyonce.messaging.rabbit.RabbitMessageTransport}: publishes an outbox message and
 *       completes its future only on a correlated publisher confirm for a routed message.</li>
 *   <li>{@link io.onlyonce.messaging.rabbit.RabbitTopology}: the exchange, queue, binding and
 *       dead-letter exchange and queue of one consumer.</li>
 *   <li>{@link io.onlyonce.messaging.rabbit.IdempotentRabbitListener}: a manual-ack listener that
 *       hands each delivery to a {@link io.onlyonce.messaging.MessageConsumer} (the inbox)
 *       and acks, requeues (bounded) or dead-letters it on a confirmed publish.</li>
 *   <li>{@link io.onlyonce.messaging.rabbit.RabbitDeadLetters}: replays dead letters to where they
 *       were first published.</li>
 * </ul>
 */
@NullMarked
package io.onlyonce.messaging.rabbit;

import org.jspecify.annotations.NullMarked;
