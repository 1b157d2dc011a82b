package io.onlyonce.example.seckill.db;

import java.net.URI;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;

/**
 * Explains, in the "APPLICATION FAILED TO START" report instead of a stack trace, the database
 * failures a newcomer meets first: the database named in {@code spring.datasource.url} does not
 * exist (PostgreSQL, MySQL/MariaDB), no server answers there, or the embedded H2 file is held by
 * another running instance. Any other failure is left to Spring Boot's own report.
 */
class DatabaseFailureAnalyzer extends AbstractFailureAnalyzer<SQLException> {

    /** PostgreSQL: invalid catalog name. */
    private static final String POSTGRES_NO_DATABASE = "3D000";
    /** MySQL and MariaDB: unknown database. */
    private static final int MYSQL_NO_DATABASE = 1049;
    /** H2: the database file is locked by another process. */
    private static final int H2_ALREADY_IN_USE = 90020;

    private final Environment environment;

    DatabaseFailureAnalyzer(Environment environment) {
        this.environment = environment;
    }

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, SQLException cause) {
        // without its query: a password may be written there
        String url = environment.getProperty("spring.datasource.url", "").replaceFirst("[?;].*$", "");
        String database = databaseName(url);
        if (POSTGRES_NO_DATABASE.equals(cause.getSQLState())) {
            return new FailureAnalysis("PostgreSQL answers at " + hostAndPort(url) + ", but it has no database '" + database
                    + "' (spring.datasource.url=" + url + ").",
                    "Create it once: psql -h " + host(url) + " -U " + user() + " -c 'CREATE DATABASE " + database
                            + "' (the service creates its tables itself), or set PG_URL to a database that exists.", cause);
        }
        if (cause.getErrorCode() == MYSQL_NO_DATABASE) {
            return new FailureAnalysis("MySQL/MariaDB answers at " + hostAndPort(url) + ", but it has no database '" + database
                    + "' (spring.datasource.url=" + url + ").",
                    "Create it once: mariadb -h " + host(url) + " -u " + user() + " -e 'CREATE DATABASE " + database
                            + "' (the service creates its tables itself), or set MYSQL_URL to a database that exists.", cause);
        }
        if (cause.getErrorCode() == H2_ALREADY_IN_USE) {
            return new FailureAnalysis("The embedded database " + url + " is in use by another running instance of the service"
                    + " (H2 opens a database file in one process at a time).",
                    "Stop the other instance (a second scripts/run.sh?), or give this one a database of its own:"
                            + " --spring.datasource.url=jdbc:h2:file:./data/seckill-2", cause);
        }
        if (isConnectionRefused(cause) && !url.startsWith("jdbc:h2:")) {
            return new FailureAnalysis("No database server answers at " + hostAndPort(url) + " (spring.datasource.url=" + url + ").",
                    "Start it (on Debian: bash scripts/services.sh postgres, or mariadb), or point the profile's URL"
                            + " (PG_URL, MYSQL_URL) at a server that runs.", cause);
        }
        return null;
    }

    private String user() {
        return environment.getProperty("spring.datasource.username", "postgres");
    }

    private static boolean isConnectionRefused(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof java.net.ConnectException) {
                return true;
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return false;
    }

    /** {@code seckill} of {@code jdbc:postgresql://host:5432/seckill?x=y}. */
    static String databaseName(String url) {
        URI uri = uri(url);
        String path = uri == null || uri.getPath() == null ? "" : uri.getPath();
        return path.startsWith("/") ? path.substring(1) : path;
    }

    static String host(String url) {
        URI uri = uri(url);
        return uri == null || uri.getHost() == null ? "127.0.0.1" : uri.getHost();
    }

    private static String hostAndPort(String url) {
        URI uri = uri(url);
        return uri == null || uri.getHost() == null ? url : uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort());
    }

    private static @Nullable URI uri(String url) {
        if (!url.startsWith("jdbc:")) {
            return null;
        }
        try {
            return URI.create(url.substring("jdbc:".length()));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
