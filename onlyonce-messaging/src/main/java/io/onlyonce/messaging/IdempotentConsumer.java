package io.onlyonce.messaging;

import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.jdbc.sql.Jdbc;
import io.onlyonce.messaging.internal.ShortError;
import io.onlyonce.messaging.internal.Transactions;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * An idempotent consumer with an inbox table: every message id takes effect once per consumer,
 * however often the broker delivers it, because the inbox row and the side effect commit in one
 * database transaction.
 *
 * <p>Per delivery ({@link #process}), inside ONE transaction (by default a connection of the data
 * source with autocommit off, committed here; or the {@link TransactionRunner}'s, such as a
 * Spring-managed one):
 * <ol>
 *   <li>insert {@code (consumer, message_id)} into the inbox FIRST ({@link JdbcInbox#record}); if
 *       the row exists, nothing runs: {@link Delivery#DUPLICATE};
 *   <li>run the {@link MessageHandler} on the same connection;
 *   <li>read the inbox row back in the transaction (on PostgreSQL, a transaction that one of the
 *       handler's statements made fail would otherwise be rolled back by a silent "commit");
 *   <li>commit: {@link Delivery#PROCESSED}. The transport acknowledges only after this.
 * </ol>
 * A handler failure rolls back the inbox row with the effect, so the message can run again: it is
 * tried again in process after a backoff, up to {@link ConsumerConfig#maxAttempts()} attempts, then
 * {@link Delivery.DeadLetter dead-lettered} with the last error as reason; a
 * {@link PermanentMessageFailure} dead-letters at once. A message without an id, or with one that is
 * not 1 to 255 visible ASCII characters, is dead-lettered and never processed. A failure of the
 * database before the handler ran (no connection, a failed inbox insert) is
 * {@link Delivery.Retry RETRY}: nothing committed, redeliver later; a commit that fails after the
 * handler ran counts as a failed attempt, so that a handler that breaks its own transaction cannot
 * loop for ever. A collision with a concurrent delivery of the same message
 * (serialization failure, deadlock, lock wait timeout) is tried again at once.
 *
 * <p>While a message is processed, the MDC holds {@code requestId} (its {@code X-Request-ID}
 * header) and {@code messageId}. Thread-safe: deliver from any number of threads.
 */
public final class IdempotentConsumer implements MessageConsumer {

    private final String name;
    private final JdbcInbox inbox;
    private final TransactionRunner transactions;
    private final MessageHandler handler;
    private final ConsumerConfig config;
    private final ConsumerSupport support;

    /**
     * A consumer whose transactions run on connections of {@code dataSource}.
     *
     * @param consumerName the consumer's name, its namespace in the inbox: 1 to 255 visible ASCII
     *     characters, stable across restarts and the same on every instance
     * @throws IllegalArgumentException when the name is invalid
     */
    public IdempotentConsumer(String consumerName, DataSource dataSource, JdbcDialect dialect, MessageHandler handler,
            ConsumerConfig config) {
        this(consumerName, dialect, TransactionRunner.of(dataSource), handler, config);
    }

    /**
     * A consumer whose transactions {@code transactions} runs (for example in a Spring-managed
     * transaction).
     *
     * @param consumerName as for the other constructor
     * @throws IllegalArgumentException when the name is invalid
     */
    public IdempotentConsumer(String consumerName, JdbcDialect dialect, TransactionRunner transactions,
            MessageHandler handler, ConsumerConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        this.support = new ConsumerSupport(consumerName, config);
        this.name = consumerName;
        this.inbox = new JdbcInbox(Objects.requireNonNull(dialect, "dialect"));
        this.transactions = Objects.requireNonNull(transactions, "transactions");
        this.handler = Objects.requireNonNull(handler, "handler");
    }

    @Override
    public String name() {
        return name;
    }

    /** The configuration. */
    public ConsumerConfig config() {
        return config;
    }

    @Override
    public ConsumerStats stats() {
        return support.stats();
    }

    /**
     * Processes one delivery as described in the class comment.
     *
     * @return what the transport does with the delivery; never null
     */
    @Override
    public Delivery process(InboundMessage message) {
        Objects.requireNonNull(message, "message");
        String invalid = ConsumerSupport.invalidId(message.id());
        if (invalid != null) {
            return support.deadLetter(invalid);
        }
        String id = Objects.requireNonNull(message.id());
        ConsumerSupport.MdcScope mdc = ConsumerSupport.mdc(message);
        try {
            return run(message, id);
        } finally {
            mdc.close();
        }
    }

    private Delivery run(InboundMessage message, String id) {
        int attempt = 0;
        int collisions = 0;
        while (true) {
            boolean[] handled = {false};
            try {
                boolean inserted = transactions.inTransaction(connection -> {
                    if (!inbox.record(connection, name, id)) {
                        return false;
                    }
                    try {
                        handler.handle(message, connection);
                    } catch (Exception e) {
                        throw new HandlerFailure(e);
                    }
                    handled[0] = true;
                    // PostgreSQL's driver commits a transaction that a statement made fail by rolling it
                    // back without a word; reading the inbox row in it first turns that into an error
                    if (!inbox.contains(connection, name, id)) {
                        throw new IllegalStateException("the handler removed the inbox row of its message");
                    }
                    return true;
                });
                return inserted ? support.processed() : support.duplicate();
            } catch (Exception e) {
                HandlerFailure failure = HandlerFailure.find(e);
                Throwable cause = failure == null ? e : failure.getCause();
                PermanentMessageFailure permanent = failure == null ? null : ConsumerSupport.permanent(cause);
                if (permanent != null) {
                    return support.deadLetter(ConsumerSupport.reason(permanent));
                }
                if (Transactions.isConflict(cause)) {
                    if (++collisions >= Jdbc.MAX_ATTEMPTS) {
                        return support.requeue("kept colliding with concurrent transactions: " + ShortError.of(cause));
                    }
                    if (!pause(collisions, cause)) {
                        return support.requeue("interrupted");
                    }
                    continue;
                }
                if (failure == null && !handled[0]) {
                    return support.requeue("database unavailable: " + ShortError.of(cause));
                }
                // the handler failed, or its work could not be committed (for example a PostgreSQL
                // transaction it had made fail): an attempt of this message, bounded
                String what = failure == null ? "could not commit: " : "";
                if (++attempt >= config.maxAttempts()) {
                    return support.deadLetter(ConsumerSupport.attemptsFailed(attempt, what + ShortError.of(cause)));
                }
                if (!support.awaitRetry(attempt)) {
                    return support.requeue("interrupted");
                }
            }
        }
    }

    private static boolean pause(int collisions, Throwable cause) {
        try {
            Transactions.pause(collisions, cause instanceof Exception e ? e : new Exception(cause));
            return true;
        } catch (SQLException interrupted) {
            return false;
        }
    }

    @Override
    public String toString() {
        return "IdempotentConsumer[" + name + "]";
    }

    /** Wraps what the handler threw, so that it is told apart from failures of the database. */
    private static final class HandlerFailure extends RuntimeException {

        private static final long serialVersionUID = 1L;

        HandlerFailure(Exception cause) {
            super(cause.getMessage(), cause, false, false);
        }

        static @Nullable HandlerFailure find(Throwable error) {
            for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
                if (cause instanceof HandlerFailure failure) {
                    return failure;
                }
            }
            return null;
        }
    }
}
