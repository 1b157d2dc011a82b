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
     * Runs {@code work} on a connection taken from {@code dataSource} and closed afterwards; the
     * connection's autocommit is left as the data source gives it.
     *
     * @param operation what is done, for the exception message
     */
    public static <T extends @Nullable Object> T run(DataSource dataSource, String operation, Work<T> work) {
        try (Connection connection = dataSource.getConnection()) {
            return work.run(connection);
        } catch (SQLException e) {
            throw new StoreUnavailableException(operation, e);
        }
    }
}
