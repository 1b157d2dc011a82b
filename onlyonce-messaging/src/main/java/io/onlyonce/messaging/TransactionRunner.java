package io.onlyonce.messaging;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Runs the work of one delivery in one database transaction: the inbox row and the side effect on
 * one connection, committed together or rolled back together. The default,
 * {@link #of(DataSource)}, takes a connection from a data source; the Spring integration supplies a
 * runner that uses a Spring-managed transaction instead (a {@code TransactionTemplate}, passing the
 * connection bound to it), so that a handler may write through a {@code JdbcTemplate} or JPA in the
 * same transaction.
 *
 * <p>Contract: run {@code work} once, on a connection whose transaction is used for nothing else;
 * commit when it returns; roll back when it throws, and rethrow what it threw unchanged (or wrapped,
 * with it as a cause); a failure to get a connection or to commit is thrown as it is.
 */
public interface TransactionRunner {

    /** Runs {@code work} in one transaction, as described above, and returns its result. */
    <T extends @Nullable Object> T inTransaction(Work<T> work) throws Exception;

    /** The work of one transaction. */
    @FunctionalInterface
    interface Work<T extends @Nullable Object> {
        T run(Connection connection) throws Exception;
    }

    /**
     * A runner that takes a connection from {@code dataSource} for each transaction, switches
     * autocommit off for it (and back on afterwards, if it was on), commits or rolls back, and
     * closes the connection. It keeps the isolation level the pool hands out.
     */
    static TransactionRunner of(DataSource dataSource) {
        Objects.requireNonNull(dataSource, "dataSource");
        return new TransactionRunner() {
            @Override
            public <T extends @Nullable Object> T inTransaction(Work<T> work) throws Exception {
                try (Connection connection = dataSource.getConnection()) {
                    boolean autoCommit = connection.getAutoCommit();
                    if (autoCommit) {
                        connection.setAutoCommit(false);
                    }
                    try {
                        T result;
                        try {
                            result = work.run(connection);
                        } catch (Throwable failure) {
                            rollback(connection, failure);
                            throw failure;
                        }
                        try {
                            connection.commit();
                        } catch (SQLException failure) {
                            rollback(connection, failure);
                            throw failure;
                        }
                        return result;
                    } finally {
                        if (autoCommit) {
                            restoreAutoCommit(connection);
                        }
                    }
                }
            }

            @Override
            public String toString() {
                return "TransactionRunner.of(" + dataSource + ")";
            }
        };
    }

    private static void rollback(Connection connection, Throwable failure) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }

    private static void restoreAutoCommit(Connection connection) {
        try {
            connection.setAutoCommit(true);
        } catch (SQLException ignored) {
            // the connection is broken; the pool will discard it
        }
    }
}
