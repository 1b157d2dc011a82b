package io.onlyonce.messaging.internal;

import io.onlyonce.StoreUnavailableException;
import io.onlyonce.jdbc.sql.Jdbc;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Runs a few statements as one short transaction of the message layer's own, on a connection of its
 * own: autocommit switched off for the work (and back on afterwards), the isolation level lowered to
 * READ COMMITTED when the pool hands out a higher one (and restored afterwards), committed at the
 * end, rolled back on failure, and tried again on a serialization failure or deadlock
 * ({@link Jdbc#isTransient}), up to {@link Jdbc#MAX_ATTEMPTS} times.
 *
 * <p>READ COMMITTED is what a claim with {@code FOR UPDATE SKIP LOCKED} is written for: each
 * statement sees the rows committed before it, PostgreSQL raises no serialization failure for a row
 * another relay claimed after the transaction began, and InnoDB takes no gap locks that would make
 * the business transactions' inserts into the outbox wait.
 */
public final class Transactions {

    private Transactions() {
    }

    /**
     * Runs {@code work} in one transaction, as described above.
     *
     * @param operation what is done, for the exception message
     * @throws StoreUnavailableException when the work still fails
     */
    public static <T extends @Nullable Object> T run(DataSource dataSource, String operation, Jdbc.Work<T> work) {
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            int isolation = connection.getTransactionIsolation();
            boolean lowered = isolation > Connection.TRANSACTION_READ_COMMITTED;
            if (lowered) {
                if (!autoCommit) {
                    // reading the level may have begun a transaction (PostgreSQL's driver runs SHOW)
                    connection.rollback();
                }
                connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            }
            if (autoCommit) {
                connection.setAutoCommit(false);
            }
            try {
                return attempt(connection, work);
            } finally {
                if (autoCommit) {
                    connection.setAutoCommit(true);
                }
                if (lowered) {
                    connection.setTransactionIsolation(isolation);
                }
            }
        } catch (SQLException e) {
            throw new StoreUnavailableException(operation, e);
        }
    }

    private static <T extends @Nullable Object> T attempt(Connection connection, Jdbc.Work<T> work) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try {
                T result = work.run(connection);
                connection.commit();
                return result;
            } catch (SQLException e) {
                rollbackQuietly(connection, e);
                if (attempt >= Jdbc.MAX_ATTEMPTS || !Jdbc.isTransient(e)) {
                    throw e;
                }
                pause(attempt, e);
            } catch (RuntimeException | Error e) {
                rollbackQuietly(connection, e);
                throw e;
            }
        }
    }

    /** Rolls back, adding a failure of the rollback to {@code failure}. */
    public static void rollbackQuietly(Connection connection, Throwable failure) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }

    /** Sleeps 1 ms up to 2^(attempt+1) ms (at most 64), so that the racers that collided spread out. */
    public static void pause(int attempt, Exception failure) throws SQLException {
        long bound = 2L << Math.min(attempt, 5);
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(1, bound + 1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            SQLException interrupted = new SQLException("interrupted while waiting to retry", e);
            interrupted.addSuppressed(failure);
            throw interrupted;
        }
    }

    /**
     * Whether {@code error} (or a cause) says that the work collided with a concurrent transaction
     * and may succeed when tried again: a serialization failure or deadlock ({@link Jdbc#isTransient}),
     * or a lock wait that timed out (PostgreSQL {@code 55P03}, MySQL and MariaDB error 1205, H2
     * error 50200).
     */
    public static boolean isConflict(@Nullable Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof SQLException sql) {
                if (Jdbc.isTransient(sql) || isLockTimeout(sql)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean isLockTimeout(SQLException e) {
        for (SQLException next = e; next != null; next = next.getNextException()) {
            if ("55P03".equals(next.getSQLState()) || next.getErrorCode() == 1205 || next.getErrorCode() == 50200) {
                return true;
            }
        }
        return false;
    }
}
