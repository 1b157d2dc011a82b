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
 * The tables of the message layer, shipped as one SQL script per database:
 * {@code db/onlyonce-messaging/{postgresql,mysql,h2}/V1__onlyonce_messaging.sql}, holding
 * {@value #MESSAGE_LOG_TABLE} (the outbox) and {@value #INBOX_TABLE} (the consumers' inbox).
 *
 * <p>With Flyway, add {@code classpath:} + {@link #location(JdbcDialect)} to the locations of a
 * Flyway instance that keeps its own history table (the script is version 1, which would clash
 * with an application's own first migration and with the stores' script), or copy the script into
 * the application's migrations. Without Flyway, {@link #apply} runs it. Every statement is
 * {@code CREATE ... IF NOT EXISTS}, so applying it to a database that has the tables changes
 * nothing.
 *
 * <p>MySQL needs 8.0.1 and MariaDB 10.6 or later: the relay claims rows with
 * {@code FOR UPDATE SKIP LOCKED}.
 */
public final class MessagingSchema {

    /** The outbox table. */
    public static final String MESSAGE_LOG_TABLE = "onlyonce_message_log";
    /** The inbox table. */
    public static final String INBOX_TABLE = "onlyonce_inbox";
    /** File name of the script in each {@link #location(JdbcDialect)}. */
    public static final String SCRIPT_NAME = "V1__onlyonce_messaging.sql";

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

    /** The classpath resource of the script for {@code dialect}. */
    public static String scriptLocation(JdbcDialect dialect) {
        return location(dialect) + "/" + SCRIPT_NAME;
    }

    /** The statements of the script for {@code dialect}, comment lines removed, in order. */
    public static List<String> statements(JdbcDialect dialect) {
        StringBuilder code = new StringBuilder();
        for (String line : read(scriptLocation(dialect)).split("\n")) {
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
     * Creates the tables where they do not exist, on one connection from {@code dataSource},
     * committing at the end when that connection is not in autocommit mode.
     *
     * @throws io.onlyonce.StoreUnavailableException when a statement fails
     */
    public static void apply(DataSource dataSource, JdbcDialect dialect) {
        List<String> statements = statements(dialect);
        Jdbc.<@Nullable Void>run(dataSource, "messaging schema creation", connection -> {
            try (Statement statement = connection.createStatement()) {
                for (String sql : statements) {
                    statement.execute(sql);
                }
            }
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
            return null;
        });
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
