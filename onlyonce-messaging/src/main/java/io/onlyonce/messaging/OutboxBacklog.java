package io.onlyonce.messaging;

import java.util.Objects;

/**
 * What waits in the outbox for one destination, read in one statement on the database server's
 * clock ({@link OutboxRelay#backlog(java.time.Duration)}).
 *
 * @param exchange where the messages go
 * @param routingKey their routing key
 * @param waiting rows the relay has still to send: PREPARED (due now or after a backoff) and SENDING
 * @param oldestWaitingAgeMillis how long the oldest of them has been waiting since it was recorded,
 *     in milliseconds; 0 when none waits
 * @param failed FAILED rows, given up on, waiting for an operator's resubmit
 */
public record OutboxBacklog(String exchange, String routingKey, long waiting, long oldestWaitingAgeMillis, long failed) {

    public OutboxBacklog {
        Objects.requireNonNull(exchange, "exchange");
        Objects.requireNonNull(routingKey, "routingKey");
        if (waiting < 0 || oldestWaitingAgeMillis < 0 || failed < 0) {
            throw new IllegalArgumentException("counts and ages are never negative");
        }
    }
}
