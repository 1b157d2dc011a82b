package io.onlyonce.jdbc;

import java.util.regex.Pattern;

/**
 * The table names of the JDBC stores. Each is a plain unquoted identifier of 1 to 63 characters
 * ({@code [A-Za-z_][A-Za-z0-9_]{0,62}}), so it is valid as it is on every supported database;
 * the three names differ from one another, ignoring case.
 *
 * @param idempotencyTable the table of {@link JdbcIdempotencyStore}
 * @param tokenTable the table of {@link JdbcTokenStore}
 * @param windowTable the table of {@link JdbcWindowStore}
 * @param joinTransactions whether the stores run inside the caller's transaction (a data source
 *     such as Spring's {@code TransactionAwareDataSourceProxy} hands them its connection), and so
 *     never commit, roll back or retry: such transactions must run at READ COMMITTED. By default
 *     ({@code false}) every statement is a transaction of its own, committed by the store when the
 *     pool hands out connections with autocommit off, and retried on a serialization failure or
 *     deadlock, so each operation is durable when it returns, at any isolation level
 */
public record JdbcStoreConfig(String idempotencyTable, String tokenTable, String windowTable, boolean joinTransactions) {

    /** Default name of the idempotency table. */
    public static final String DEFAULT_IDEMPOTENCY_TABLE = "onlyonce_idempotency";
    /** Default name of the token table. */
    public static final String DEFAULT_TOKEN_TABLE = "onlyonce_token";
    /** Default name of the window table. */
    public static final String DEFAULT_WINDOW_TABLE = "onlyonce_window";

    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    /**
     * @throws IllegalArgumentException when a name is not a plain identifier or two names are equal
     */
    public JdbcStoreConfig {
        check("idempotencyTable", idempotencyTable);
        check("tokenTable", tokenTable);
        check("windowTable", windowTable);
        if (idempotencyTable.equalsIgnoreCase(tokenTable) || idempotencyTable.equalsIgnoreCase(windowTable)
                || tokenTable.equalsIgnoreCase(windowTable)) {
            throw new IllegalArgumentException("the three table names must differ");
        }
    }

    /** These table names; every operation durable when it returns. */
    public JdbcStoreConfig(String idempotencyTable, String tokenTable, String windowTable) {
        this(idempotencyTable, tokenTable, windowTable, false);
    }

    /** The default names: {@code onlyonce_idempotency}, {@code onlyonce_token}, {@code onlyonce_window}. */
    public static JdbcStoreConfig defaults() {
        return new JdbcStoreConfig(DEFAULT_IDEMPOTENCY_TABLE, DEFAULT_TOKEN_TABLE, DEFAULT_WINDOW_TABLE);
    }

    /** A copy with another idempotency table. */
    public JdbcStoreConfig withIdempotencyTable(String name) {
        return new JdbcStoreConfig(name, tokenTable, windowTable, joinTransactions);
    }

    /** A copy with another token table. */
    public JdbcStoreConfig withTokenTable(String name) {
        return new JdbcStoreConfig(idempotencyTable, name, windowTable, joinTransactions);
    }

    /** A copy with another window table. */
    public JdbcStoreConfig withWindowTable(String name) {
        return new JdbcStoreConfig(idempotencyTable, tokenTable, name, joinTransactions);
    }

    /**
     * A copy whose stores run inside the caller's transaction ({@code true}; it must be at READ
     * COMMITTED) or commit each of their statements ({@code false}).
     */
    public JdbcStoreConfig withJoinTransactions(boolean join) {
        return new JdbcStoreConfig(idempotencyTable, tokenTable, windowTable, join);
    }

    private static void check(String what, String name) {
        if (name == null || !TABLE_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " must match " + TABLE_NAME.pattern() + ": " + name);
        }
    }
}
