package io.onlyonce.messaging;

import org.jspecify.annotations.Nullable;

/**
 * One row of the outbox as an operator sees it (without payload and headers).
 *
 * @param id the message id
 * @param exchange where it is published
 * @param routingKey its routing key
 * @param status its state
 * @param attempts publish attempts so far
 * @param lastError the last publish failure, or null
 * @param createdAtMs when it was recorded, epoch ms on the database server's clock
 */
public record OutboxEntry(String id, String exchange, String routingKey, MessageStatus status, int attempts,
        @Nullable String lastError, long createdAtMs) {
}
