package io.onlyonce.spring.autoconfigure;

import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.spring.OnlyOnceConfigurationException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks at start-up, after the application's own database initialisation, that OnlyOnce's tables
 * exist, so that an application without them fails to start naming the table and both ways to create
 * it, instead of answering every request 503. A database that cannot be reached is only logged:
 * OnlyOnce starts while a store is down.
 *
 * @param component what needs the tables, for the messages
 * @param tables the tables
 * @param flywayLocation the classpath folder of the schema scripts for the database
 * @param script the file name of the script in that folder
 * @param property the property that creates the tables at start-up when set to {@code always}
 */
public record SchemaCheck(String component, List<String> tables, String flywayLocation, String script, String property) {

    private static final Logger log = LoggerFactory.getLogger(SchemaCheck.class);

    /**
     * SQLStates of "no such table": PostgreSQL's 42P01, MySQL's, MariaDB's and H2's 42S02, H2's 42S04
     * on an empty database, and H2's error codes given as states by older drivers.
     */
    private static final Set<String> UNDEFINED_TABLE = Set.of("42P01", "42S02", "42S04", "42102", "42104");
    /** SQLStates of "no such column": PostgreSQL's 42703, MySQL's, MariaDB's and H2's 42S22, H2's 42122. */
    private static final Set<String> UNDEFINED_COLUMN = Set.of("42703", "42S22", "42122");

    /**
     * Reads no row of each table ({@code SELECT 1 FROM t WHERE 1=0}).
     *
     * @throws OnlyOnceConfigurationException when a table does not exist
     */
    public void verify(DataSource dataSource, JdbcDialect dialect) {
        List<String> missing = new ArrayList<>();
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            for (String table : tables) {
                try (Statement statement = connection.createStatement()) {
                    statement.executeQuery("SELECT 1 FROM " + table + " WHERE 1=0").close();
                } catch (SQLException e) {
                    if (!isUndefinedTable(e)) {
                        throw e;
                    }
                    missing.add(table);
                } finally {
                    if (!autoCommit) {
                        // a failed statement aborts PostgreSQL's transaction; nothing was changed
                        connection.rollback();
                    }
                }
            }
        } catch (SQLException e) {
            log.warn("{} could not check that its tables {} exist: the database did not answer at start-up ({})",
                    component, tables, e.toString());
            return;
        }
        if (!missing.isEmpty()) {
            String names = String.join(", ", missing);
            throw new OnlyOnceConfigurationException((missing.size() == 1 ? "The table " : "The tables ") + names
                    + " of " + component + (missing.size() == 1 ? " does" : " do") + " not exist in the application's "
                    + database(dialect) + " database.", "Create " + (missing.size() == 1 ? "it" : "them")
                    + " with the application's Flyway migrations (add the location classpath:" + flywayLocation
                    + " to a Flyway instance with a history table of its own, or copy " + flywayLocation + "/" + script
                    + " into your migrations), or let OnlyOnce create " + (missing.size() == 1 ? "it" : "them")
                    + " at start-up: " + property + "=always.");
        }
    }

    /**
     * Reads no row of {@code column} of one of the tables, which exist: a database migrated with an
     * earlier version of the scripts lacks it, and the application fails to start naming the script
     * that adds it. A database that cannot be reached is only logged.
     *
     * @param script the file name of the script that adds the column, in the same folder
     * @throws OnlyOnceConfigurationException when the column does not exist
     */
    public void verifyColumn(DataSource dataSource, JdbcDialect dialect, String table, String column, String script) {
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            try (Statement statement = connection.createStatement()) {
                statement.executeQuery("SELECT " + column + " FROM " + table + " WHERE 1=0").close();
            } catch (SQLException e) {
                if (!hasState(e, UNDEFINED_COLUMN)) {
                    throw e;
                }
                throw new OnlyOnceConfigurationException("The column " + table + "." + column + " of " + component
                        + " does not exist in the application's " + database(dialect) + " database: its tables were"
                        + " created by an earlier version.", "Run " + flywayLocation + "/" + script + " (Flyway runs it"
                        + " with the location classpath:" + flywayLocation + "; copy it into your migrations if you"
                        + " copied the first script), or let OnlyOnce add it at start-up: " + property + "=always.");
            } finally {
                if (!autoCommit) {
                    connection.rollback();
                }
            }
        } catch (SQLException e) {
            log.warn("{} could not check that the column {}.{} exists: the database did not answer at start-up ({})",
                    component, table, column, e.toString());
        }
    }

    private static boolean hasState(SQLException failure, Set<String> states) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && states.contains(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    public static boolean isUndefinedTable(SQLException failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && UNDEFINED_TABLE.contains(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    private static String database(JdbcDialect dialect) {
        return switch (dialect) {
            case POSTGRESQL -> "PostgreSQL";
            case MYSQL -> "MySQL/MariaDB";
            case H2 -> "H2";
        };
    }
}
