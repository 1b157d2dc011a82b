/**
 * The message layer: a transactional outbox, a relay that publishes on broker confirms, and
 * idempotent consumers.
 *
 * <ul>
 *   <li>Producer: {@link io.onlyonce.messaging.JdbcOutbox#record} writes an
 *       {@link io.onlyonce.messaging.OutboxMessage} in the business transaction.
 *   <li>Relay: {@link io.onlyonce.messaging.OutboxRelay} claims due rows with a lease
 *       ({@code FOR UPDATE SKIP LOCKED}), publishes them through a
 *       {@link io.onlyonce.messaging.MessageTransport} outside any lock, and marks them sent only on
 *       the broker's confirm; backoff, FAILED, resubmit, sweep and purge included.
 *   <li>Consumers: {@link io.onlyonce.messaging.IdempotentConsumer} records each message id in an
 *       inbox table in the same transaction as its side effect;
 *       {@link io.onlyonce.messaging.StoreIdempotentConsumer} keys side effects outside the database
 *       in an {@link io.onlyonce.store.IdempotencyStore}, with a weaker guarantee. Transports call
 *       {@link io.onlyonce.messaging.MessageConsumer#process} and act on its
 *       {@link io.onlyonce.messaging.Delivery}.
 *   <li>Transports: {@link io.onlyonce.messaging.InProcessBroker} inside the JVM; RabbitMQ in
 *       {@code onlyonce-messaging-rabbit}.
 *   <li>Schema: {@link io.onlyonce.messaging.MessagingSchema}.
 * </ul>
 *
 * <p>Every time (due times, leases, purge ages) is the database server's, computed in SQL. See
 * {@code docs/messaging.md}.
 */
@NullMarked
package io.onlyonce.messaging;

import org.jspecify.annotations.NullMarked;
