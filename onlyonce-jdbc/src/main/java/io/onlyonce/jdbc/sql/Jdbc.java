package io.onlyonce.jdbc.sql;

import io.onlyonce.StoreUnavailableException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Runs the statements of one store operation on one connection of a data source, and turns every
 * {@link SQLException} into a {@link StoreUnavailableException}.
 *
 * <p>Unless the operation joins the caller's transaction, every statement is a transaction of its
 * own: with autocommit on the server commits it, with autocommit off {@link Session#step} commits
 * it (or rolls it back) before the next statement runs. No lock is ever held from one statement to
 * the next, so that no two operations can deadlock on the order in which they lock, and a
 * statement's result is never decided on a snapshot older than the statement, at any isolation
 * level. Where {@link Transactions#of} says so (PostgreSQL, H2), an operation whose statement failed
 * on a serialization failure at a level stricter than READ COMMITTED runs the rest at READ
 * COMMITTED: there a stricter level makes every write to a row that a concurrent statement changed
 * first fail again, which under contention on one row outlasts any retry budget. A statement that still fails on a serialization failure or
 * a deadlock (SQLState {@code 40001}, {@code 40P01}; MySQL and MariaDB error 1213 or 1020; H2 error
 * 90131) had its whole transaction rolled back, so it is tried again, up to {@link #MAX_ATTEMPTS}
 * times, after a short random pause. A joined transaction is not the store's to roll back: there a
 * failure is final, and its isolation level is the caller's.
 */
public final class Jdbc {

    /** How often one statement is tried before a serialization failure or deadlock is given up on. */
    public static final int MAX_ATTEMPTS = 10;

    private static final int MYSQL_DEADLOCK = 1213;
    private static final int MARIADB_RECORD_CHANGED = 1020;
    private static final String H2_CONCURRENT_UPDATE = "90131";

    private Jdbc() {
    }

    /** Work on a connection. */
    @FunctionalInterface
    public interface Work<T extends @Nullable Object> {
        T run(Connection connection) throws SQLException;
    }

    /** The statements of one operation, each run through {@link Session#step}. */
    @FunctionalInterface
    public interface Steps<T extends @Nullable Object> {
        T run(Session session) throws SQLException;
    }

    /**
     * Runs {@code work} on a connection taken from {@code dataSource} and closed afterwards, as the
     * data source gives it: for metadata and schema work that manages its own transaction.
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

    /**
     * Runs the statements of {@code steps} on a connection taken from {@code dataSource} and closed
     * afterwards, at the connection's isolation level. Unless {@code joinTransaction}, each
     * statement is durable as soon as its step returns.
     *
     * @param joinTransaction whether the connection belongs to the caller's transaction, which
     *     commits or rolls back the work itself
     * @param operation what is done, for the exception message
     */
    public static <T extends @Nullable Object> T run(DataSource dataSource, boolean joinTransaction, String operation,
            Steps<T> steps) {
        return run(dataSource, joinTransaction ? Transactions.JOINED : Transactions.OWN, operation, steps);
    }

    /**
     * Runs the statements of {@code steps} on a connection taken from {@code dataSource} and closed
     * afterwards, in the {@code transactions} given. Unless they are {@link Transactions#JOINED},
     * each statement is durable as soon as its step returns.
     *
     * @param operation what is done, for the exception message
     */
    public static <T extends @Nullable Object> T run(DataSource dataSource, Transactions transactions,
            String operation, Steps<T> steps) {
        try (Connection connection = dataSource.getConnection()) {
            Session session = new Session(connection, transactions);
            T result;
            try {
                result = steps.run(session);
            } catch (Throwable failure) {
                session.restoreQuietly(failure);
                throw failure;
            }
            session.restore();
            return result;
        } catch (SQLException e) {
            throw new StoreUnavailableException(operation, e);
        }
    }

    /**
     * Whether {@code e} says that the statement's transaction was rolled back because of a
     * concurrent one, so that running it again is safe and may succeed.
     */
    public static boolean isTransient(SQLException e) {
        for (SQLException next = e; next != null; next = next.getNextException()) {
            String state = next.getSQLState();
            if ("40001".equals(state) || "40P01".equals(state) || H2_CONCURRENT_UPDATE.equals(state)
                    || next.getErrorCode() == MYSQL_DEADLOCK || next.getErrorCode() == MARIADB_RECORD_CHANGED) {
                return true;
            }
        }
        return false;
    }

    /** How the statements of one operation use the transactions of its connection. */
    public enum Transactions {

        /**
         * In the caller's transaction, which commits or rolls back the work: the store neither
         * commits, rolls back, retries, nor touches the isolation level.
         */
        JOINED,
        /** Each statement a transaction of its own, at the connection's isolation level. */
        OWN,
        /**
         * Each statement a transaction of its own; once one fails on a serialization failure at a
         * level stricter than READ COMMITTED (REPEATABLE READ, SERIALIZABLE), the rest of the
         * operation, starting with that statement's next attempt, runs at READ COMMITTED, and the
         * connection's level is set back before it is closed. Without such a failure nothing is
         * asked of the connection, so a pool at READ COMMITTED pays nothing for it.
         */
        OWN_AT_READ_COMMITTED;

        /**
         * The transactions of a store on {@code dialect}. Unless joined, PostgreSQL and H2 run their
         * own at READ COMMITTED: at a stricter level they refuse a write to a row changed after the
         * statement's snapshot (SQLState {@code 40001}, H2 error 90131), so that racing writes to one
         * row fail over and over. MySQL and MariaDB keep the pool's level: InnoDB's writes and
         * locking reads always see the latest committed row, so a stricter level adds no such
         * failures, and READ COMMITTED is refused for writes where the binary log is statement-based.
         */
        public static Transactions of(JdbcDialect dialect, boolean joined) {
            if (joined) {
                return JOINED;
            }
            return switch (dialect) {
                case POSTGRESQL, H2 -> OWN_AT_READ_COMMITTED;
                case MYSQL -> OWN;
            };
        }
    }

    /** One operation's connection. */
    public static final class Session {

        private final Connection connection;
        private final boolean joined;
        private final boolean commitEach;
        private boolean mayLower;
        private int levelToRestore = -1;

        Session(Connection connection, Transactions transactions) throws SQLException {
            this.connection = connection;
            this.joined = transactions == Transactions.JOINED;
            this.commitEach = !joined && !connection.getAutoCommit();
            this.mayLower = transactions == Transactions.OWN_AT_READ_COMMITTED;
        }

        /**
         * Runs {@code statement}, which executes exactly one SQL statement, as a transaction of its
         * own (unless joined), trying it again on a serialization failure or deadlock.
         */
        public <T extends @Nullable Object> T step(Work<T> statement) throws SQLException {
            for (int attempt = 1; ; attempt++) {
                try {
                    T result = statement.run(connection);
                    if (commitEach) {
                        connection.commit();
                    }
                    return result;
                } catch (SQLException e) {
                    rollbackQuietly(e);
                    if (joined || attempt >= MAX_ATTEMPTS || !isTransient(e)) {
                        throw e;
                    }
                    lowerAfterConflict();
                    pause(attempt, e);
                } catch (RuntimeException e) {
                    rollbackQuietly(e);
                    throw e;
                }
            }
        }

        /**
         * After a statement's transaction was rolled back on a conflict: at a level stricter than
         * READ COMMITTED, where racing writes to one row would keep failing, lowers the connection to
         * READ COMMITTED for the rest of the operation. Asked once per operation.
         */
        private void lowerAfterConflict() throws SQLException {
            if (!mayLower) {
                return;
            }
            mayLower = false;
            int level = connection.getTransactionIsolation();
            if (level > Connection.TRANSACTION_READ_COMMITTED) {
                connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                levelToRestore = level;
            }
        }

        /** Sets a lowered connection back to its level, before it is handed back. */
        void restore() throws SQLException {
            if (levelToRestore >= 0) {
                int level = levelToRestore;
                levelToRestore = -1;
                if (commitEach) {
                    connection.commit();
                }
                connection.setTransactionIsolation(level);
            }
        }

        void restoreQuietly(Throwable failure) {
            try {
                if (levelToRestore >= 0 && commitEach) {
                    connection.rollback();
                }
                restore();
            } catch (SQLException | RuntimeException e) {
                failure.addSuppressed(e);
            }
        }

        private void rollbackQuietly(Exception failure) {
            if (!commitEach) {
                return;
            }
            try {
                connection.rollback();
            } catch (SQLException e) {
                failure.addSuppressed(e);
            }
        }

        /** Sleeps 1 ms up to 2^(attempt+1) ms (at most 64), so that the racers that collided spread out. */
        private static void pause(int attempt, SQLException failure) throws SQLException {
            long bound = 2L << Math.min(attempt, 5);
            try {
                Thread.sleep(ThreadLocalRandom.current().nextLong(1, bound + 1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failure.addSuppressed(e);
                throw failure;
            }
        }
    }
}
