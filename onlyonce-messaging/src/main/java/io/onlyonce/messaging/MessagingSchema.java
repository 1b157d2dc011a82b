package io.onlyonce.messaging;

import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.jdbc.sql.Jdbc;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The tables of the message layer, shipped as SQL scripts per database in
 * {@code db/onlyonce-messaging/{postgresql,mysql,h2}/}: {@code V1__onlyonce_messaging.sql} creates
 * {@value #MESSAGE_LOG_TABLE} (the outbox) and {@value #INBOX_TABLE} (the consumers' inbox);
 * {@code V2__onlyonce_messaging_lease.sql} gives the relay's lease a column of its own
 * ({@code lease_until_ms}), so that a claim changes no indexed column (on PostgreSQL a HOT update).
 *
 * <p>With Flyway, add {@code classpath:} + {@link #location(JdbcDialect)} to the locations of a
 * Flyway instance that keeps its own history table (the scripts are versions 1 and 2, which would
 * clash with an application's own migrations and with the stores' script), or copy the scripts into
 * the application's migrations. Without Flyway, {@link #apply} runs them. Applying them to a
 * database that has the tables and the column changes nothing.
 *
 * <p>MySQL needs 8.0.1 and MariaDB 10.6 or later: the relay claims rows with
 * {@code FOR UPDATE SKIP LOCKED}.
 */
public final class MessagingSchema {

    /** The outbox table. */
    public static final String MESSAGE_LOG_TABLE = "onlyonce_message_log";
    /** The inbox table. */
    public static final String INBOX_TABLE = "onlyonce_inbox";
    /** File name of the first script in each {@link #location(JdbcDialect)}. */
    public static final String SCRIPT_NAME = "V1__onlyonce_messaging.sql";
    /** File names of the scripts in each {@link #location(JdbcDialect)}, in the order they run. */
    public static final List<String> SCRIPT_NAMES = List.of(SCRIPT_NAME, "V2__onlyonce_messaging_lease.sql");
    /** The outbox column that {@code V2} adds. */
    public static final String LEASE_COLUMN = "lease_until_ms";

    private MessagingSchema() {
    }

    /**
     * The classpath folder of the script for {@code dialect}, for example
     * {@code db/onlyonce-messaging/postgresql}; prefix it with {@code classpath:} for Flyway.
     */
    public static String location(JdbcDialect dialect) {
        return "db/onlyonce-messaging/" + switch (dialect) {
            case POSTGRESQL -> "postgresql";
            case MYSQL -> "mysql";
            case H2 -> "h2";
        };
    }

    /** The classpath resource of the first script for {@code dialect}. */
    public static String scriptLocation(JdbcDialect dialect) {
        return location(dialect) + "/" + SCRIPT_NAME;
    }

    /** The statements of the scripts for {@code dialect}, comment lines removed, in order. */
    public static List<String> statements(JdbcDialect dialect) {
        List<String> statements = new ArrayList<>();
        for (String script : SCRIPT_NAMES) {
            statements.addAll(statements(dialect, script));
        }
        return statements;
    }

    private static List<String> statements(JdbcDialect dialect, String script) {
        StringBuilder code = new StringBuilder();
        for (String line : read(location(dialect) + "/" + script).split("\n")) {
            if (!line.strip().startsWith("--")) {
                code.append(line).append('\n');
            }
        }
        List<String> statements = new ArrayList<>();
        for (String statement : code.toString().split(";")) {
            if (!statement.isBlank()) {
                statements.add(statement.strip());
            }
        }
        return statements;
    }

    /**
     * Creates the tables and columns where they do not exist, on one connection from
     * {@code dataSource}, committing at the end when that connection is not in autocommit mode.
     * The version 2 script runs only when the outbox lacks its column: an {@code ALTER TABLE} takes
     * the table's strongest lock even when it changes nothing, and would queue every insert behind
     * it at each start-up.
     *
     * @throws io.onlyonce.StoreUnavailableException when a statement fails
     */
    public static void apply(DataSource dataSource, JdbcDialect dialect) {
        Jdbc.<@Nullable Void>run(dataSource, "messaging schema creation", connection -> {
            try (Statement statement = connection.createStatement()) {
                for (String sql : statements(dialect, SCRIPT_NAME)) {
                    statement.execute(sql);
                }
                if (!connection.getAutoCommit()) {
                    connection.commit();
                }
                if (!hasLeaseColumn(connection, dialect)) {
                    for (String sql : statements(dialect, SCRIPT_NAMES.get(1))) {
                        statement.execute(sql);
                    }
                }
            }
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
            return null;
        });
    }

    private static boolean hasLeaseColumn(java.sql.Connection connection, JdbcDialect dialect) throws java.sql.SQLException {
        String table = dialect == JdbcDialect.H2 ? MESSAGE_LOG_TABLE.toUpperCase(java.util.Locale.ROOT) : MESSAGE_LOG_TABLE;
        String column = dialect == JdbcDialect.H2 ? LEASE_COLUMN.toUpperCase(java.util.Locale.ROOT) : LEASE_COLUMN;
        try (java.sql.ResultSet columns = connection.getMetaData().getColumns(connection.getCatalog(),
                dialect == JdbcDialect.MYSQL ? null : connection.getSchema(), table, column)) {
            return columns.next();
        }
    }

    private static String read(String resource) {
        try (InputStream in = MessagingSchema.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing schema script " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
