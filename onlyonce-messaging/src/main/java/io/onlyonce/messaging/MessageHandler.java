package io.onlyonce.messaging;

import java.sql.Connection;

/**
 * A consumer's side effect. It runs inside the transaction that also records the message in the
 * inbox: write through {@code connection} (or, under Spring, through anything bound to the same
 * transaction, such as a {@code JdbcTemplate} on the same {@code DataSource}), and the effect and the
 * inbox row commit together or not at all.
 *
 * <p>Throw {@link PermanentMessageFailure} for a message that can never succeed (it is
 * dead-lettered at once, with the reason); any other exception is retried a bounded number of times,
 * then dead-lettered.
 */
@FunctionalInterface
public interface MessageHandler {

    void handle(InboundMessage message, Connection connection) throws Exception;
}
