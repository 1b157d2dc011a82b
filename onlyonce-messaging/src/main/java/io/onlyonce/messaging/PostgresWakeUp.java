package io.onlyonce.messaging;

import io.onlyonce.messaging.internal.ShortError;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Wakes an {@link OutboxRelay} within milliseconds of a commit made by another process, on
 * PostgreSQL's {@code LISTEN/NOTIFY}: the business transaction calls {@link #notifyRelays} before
 * its commit (PostgreSQL delivers the notification only if it commits), and a {@code PostgresWakeUp}
 * started beside the relay holds one connection listening on {@value #CHANNEL} and calls
 * {@link OutboxRelay#wakeUp()} for each notification.
 *
 * <pre>{@code
 * // where the relay runs
 * PostgresWakeUp wakeUp = new PostgresWakeUp(dataSource, relay::wakeUp).start();
 * // in the business transaction, anywhere (one notification per transaction is enough)
 * outbox.record(connection, message);
 * PostgresWakeUp.notifyRelays(connection);
 * connection.commit();
 * }</pre>
 *
 * <p>A relay in the same JVM as the business code needs none of this: {@link OutboxRelay#wakeUp()}
 * after the commit is cheaper. The cost of a notification: PostgreSQL takes one lock at the commit
 * of every transaction that notified, so such commits queue behind each other for that moment
 * (measured in docs/benchmarks.md). The relay's poll interval still applies: a notification lost
 * while the listening connection was down only delays a message until the next poll. When the
 * connection fails, the wake-up logs it, waits {@code retry} and listens again on a new one.
 *
 * <p>Needs the PostgreSQL JDBC driver ({@code org.postgresql:postgresql}) and a pool whose
 * connections unwrap to {@link PGConnection} (HikariCP's do).
 */
public final class PostgresWakeUp implements AutoCloseable {

    /** The notification channel. */
    public static final String CHANNEL = "onlyonce_outbox";
    /** How long to wait before listening again on a new connection after one failed. */
    public static final Duration DEFAULT_RETRY = Duration.ofSeconds(1);

    private static final System.Logger LOG = System.getLogger(PostgresWakeUp.class.getName());
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final int WAIT_MILLIS = 500;

    private final DataSource dataSource;
    private final Runnable wakeUp;
    private final Duration retry;
    private final AtomicInteger listening = new AtomicInteger();
    private volatile boolean running;
    private @Nullable Thread thread;

    /** A wake-up that retries after {@link #DEFAULT_RETRY}. */
    public PostgresWakeUp(DataSource dataSource, Runnable wakeUp) {
        this(dataSource, wakeUp, DEFAULT_RETRY);
    }

    /**
     * A wake-up; nothing listens until {@link #start()}.
     *
     * @param dataSource a pool on the outbox's PostgreSQL database: one of its connections is held
     *     while the wake-up runs
     * @param wakeUp called for each notification, on the wake-up's thread (usually {@code relay::wakeUp})
     * @param retry the wait before listening again after the connection failed
     */
    public PostgresWakeUp(DataSource dataSource, Runnable wakeUp, Duration retry) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.wakeUp = Objects.requireNonNull(wakeUp, "wakeUp");
        this.retry = Objects.requireNonNull(retry, "retry");
        if (retry.isNegative() || retry.isZero()) {
            throw new IllegalArgumentException("retry must be positive");
        }
    }

    /**
     * Sends the notification in the transaction {@code connection} belongs to: listeners receive it
     * when that transaction commits, and never if it rolls back.
     *
     * @throws OutboxUnavailableException when the statement fails
     */
    public static void notifyRelays(Connection connection) {
        try (Statement statement = connection.createStatement()) {
            statement.execute("NOTIFY " + CHANNEL);
        } catch (SQLException e) {
            throw new OutboxUnavailableException("outbox notify", e);
        }
    }

    /** Starts listening on a thread of its own; does nothing when running. */
    public synchronized PostgresWakeUp start() {
        if (thread == null) {
            running = true;
            Thread listener = new Thread(this::listen, "onlyonce-outbox-wake-up-" + THREADS.incrementAndGet());
            listener.setDaemon(true);
            listener.start();
            thread = listener;
        }
        return this;
    }

    /** Stops listening and gives the connection back; waits at most a few seconds for the thread. */
    @Override
    public synchronized void close() {
        Thread listener = thread;
        if (listener == null) {
            return;
        }
        running = false;
        listener.interrupt();
        try {
            listener.join(WAIT_MILLIS * 4L);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        thread = null;
    }

    /** How many times a connection has started listening (1 while the first one holds). */
    public int connectionsListened() {
        return listening.get();
    }

    private void listen() {
        boolean failedBefore = false;
        while (running) {
            try (Connection connection = dataSource.getConnection()) {
                if (!connection.getAutoCommit()) {
                    connection.setAutoCommit(true);
                }
                try (Statement statement = connection.createStatement()) {
                    statement.execute("LISTEN " + CHANNEL);
                }
                listening.incrementAndGet();
                if (failedBefore) {
                    LOG.log(System.Logger.Level.INFO, "outbox wake-up listens again on " + CHANNEL);
                    failedBefore = false;
                }
                // a commit may have notified while nobody listened
                wakeUp.run();
                PGConnection postgres = connection.unwrap(PGConnection.class);
                while (running) {
                    PGNotification[] notifications = postgres.getNotifications(WAIT_MILLIS);
                    if (notifications != null && notifications.length > 0) {
                        wakeUp.run();
                    }
                }
                try (Statement statement = connection.createStatement()) {
                    statement.execute("UNLISTEN " + CHANNEL);
                }
            } catch (SQLException | RuntimeException e) {
                if (!running) {
                    return;
                }
                if (!failedBefore) {
                    LOG.log(System.Logger.Level.WARNING, "outbox wake-up lost its connection; the relay polls meanwhile,"
                            + " listening again in " + retry + ": " + ShortError.of(e));
                    failedBefore = true;
                }
                try {
                    Thread.sleep(retry.toMillis());
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }
}
