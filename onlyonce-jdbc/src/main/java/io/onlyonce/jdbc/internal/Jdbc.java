package io.onlyonce.jdbc.internal;

import io.onlyonce.StoreUnavailableException;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/** Runs work on one connection of a data source and turns every {@link SQLException} into a {@link StoreUnavailableException}. */
public final class Jdbc {

    private Jdbc() {
    }

    /** Work on a connection. */
    @FunctionalInterface
    public interface Work<T extends @Nullable Object> {
        T run(Connection connection) throws SQLException;
    }

    /**
     * Runs read-only {@code work} on a connection taken from {@code dataSource} and closed
     * afterwards; the connection's autocommit is left as the data source gives it.
     *
     * @param operation what is done, for the exception message
     */
    public static <T extends @Nullable Object> T run(DataSource dataSource, String operation, Work<T> work) {
        return run(dataSource, true, operation, work);
    }

    /**
     * Runs {@code work} on a connection taken from {@code dataSource} and closed afterwards. Unless
     * {@code joinTransaction}, the work is durable when this returns: on a connection with
     * autocommit off the store commits it (and rolls it back on failure), since the pool would
     * otherwise roll it back when the connection is returned.
     *
     * @param joinTransaction whether the connection belongs to the caller's transaction, which
     *     commits or rolls back the work itself
     * @param operation what is done, for the exception message
     */
    public static <T extends @Nullable Object> T run(DataSource dataSource, boolean joinTransaction, String operation,
            Work<T> work) {
        try (Connection connection = dataSource.getConnection()) {
            if (joinTransaction || connection.getAutoCommit()) {
                return work.run(connection);
            }
            try {
                T result = work.run(connection);
                connection.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(connection, e);
                throw e;
            }
        } catch (SQLException e) {
            throw new StoreUnavailableException(operation, e);
        }
    }

    private static void rollbackQuietly(Connection connection, Exception failure) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }
}
