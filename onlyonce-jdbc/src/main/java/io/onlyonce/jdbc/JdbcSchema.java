package io.onlyonce.jdbc;

import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.jdbc.sql.Jdbc;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The tables of the JDBC stores, shipped as one SQL script per database:
 * {@code db/onlyonce/{postgresql,mysql,h2}/V1__onlyonce_schema.sql}.
 *
 * <p>With Flyway, add {@code classpath:} + {@link JdbcDialect#schemaLocation()} to the locations
 * of a Flyway instance that keeps its own history table (the script is version 1, which would
 * clash with an application's own first migration), or copy the script into the application's
 * migrations. Without Flyway, {@link #apply} runs it. Every statement is {@code CREATE ... IF NOT
 * EXISTS}, so applying it to a database that has the tables changes nothing; concurrent first
 * applications from several nodes may still collide on some databases, where Flyway's lock helps.
 *
 * <p>The script names the default tables; with a {@link JdbcStoreConfig} of other names, every
 * identifier that starts with a default table name (the table and its indexes) is renamed, for
 * example {@code onlyonce_token_expires_idx} becomes {@code my_tokens_expires_idx}. PostgreSQL cuts
 * identifiers at 63 characters, so names longer than about 50 characters give truncated index
 * names there.
 */
public final class JdbcSchema {

    /** File name of the script in each {@link JdbcDialect#schemaLocation()}. */
    public static final String SCRIPT_NAME = "V1__onlyonce_schema.sql";

    private static final Pattern TABLE_PREFIX = Pattern.compile("(?<![A-Za-z0-9_])("
            + JdbcStoreConfig.DEFAULT_IDEMPOTENCY_TABLE + "|" + JdbcStoreConfig.DEFAULT_TOKEN_TABLE + "|"
            + JdbcStoreConfig.DEFAULT_WINDOW_TABLE + ")");

    private JdbcSchema() {
    }

    /** The classpath resource of the script for {@code dialect}. */
    public static String scriptLocation(JdbcDialect dialect) {
        return dialect.schemaLocation() + "/" + SCRIPT_NAME;
    }

    /**
     * The statements of the script for {@code dialect}, comment lines removed and tables renamed after
     * {@code config}, in order.
     */
    public static List<String> statements(JdbcDialect dialect, JdbcStoreConfig config) {
        Map<String, String> names = Map.of(
                JdbcStoreConfig.DEFAULT_IDEMPOTENCY_TABLE, config.idempotencyTable(),
                JdbcStoreConfig.DEFAULT_TOKEN_TABLE, config.tokenTable(),
                JdbcStoreConfig.DEFAULT_WINDOW_TABLE, config.windowTable());
        StringBuilder code = new StringBuilder();
        for (String line : read(scriptLocation(dialect)).split("\n")) {
            if (!line.strip().startsWith("--")) {
                code.append(line).append('\n');
            }
        }
        Matcher prefix = TABLE_PREFIX.matcher(code);
        String renamed = prefix.replaceAll(match -> Matcher.quoteReplacement(names.get(match.group(1))));
        List<String> statements = new ArrayList<>();
        for (String statement : renamed.split(";")) {
            if (!statement.isBlank()) {
                statements.add(statement.strip());
            }
        }
        return statements;
    }

    /** Creates the default tables where they do not exist. */
    public static void apply(DataSource dataSource, JdbcDialect dialect) {
        apply(dataSource, dialect, JdbcStoreConfig.defaults());
    }

    /**
     * Creates the tables named by {@code config} where they do not exist, on one connection from
     * {@code dataSource}, committing at the end when that connection is not in autocommit mode.
     *
     * @throws io.onlyonce.StoreUnavailableException when a statement fails
     */
    public static void apply(DataSource dataSource, JdbcDialect dialect, JdbcStoreConfig config) {
        List<String> statements = statements(dialect, config);
        Jdbc.<@Nullable Void>run(dataSource, "schema creation", connection -> {
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
        try (InputStream in = JdbcSchema.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing schema script " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
