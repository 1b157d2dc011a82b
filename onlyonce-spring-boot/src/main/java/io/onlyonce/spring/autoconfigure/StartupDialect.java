package io.onlyonce.spring.autoconfigure;

import io.onlyonce.StoreUnavailableException;
import io.onlyonce.jdbc.sql.JdbcDialect;
import java.util.Locale;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.env.Environment;

/**
 * The SQL dialect of the application's database at start-up, also while that database is down: asked
 * of the database when it answers, else read from {@code spring.datasource.url}, so that the
 * application starts and the stores answer 503 until the database is back (as they do when it goes
 * down later). Only a database that does not answer and a URL that names no supported database fail
 * start-up.
 */
public final class StartupDialect {

    private static final Logger log = LoggerFactory.getLogger(StartupDialect.class);

    private StartupDialect() {
    }

    /**
     * The dialect, and whether the database answered.
     *
     * @param dialect the dialect
     * @param answered false when it was read from the URL because the database did not answer
     */
    public record Detected(JdbcDialect dialect, boolean answered) {
    }

    /**
     * @param what who asks, for the log line ("OnlyOnce's JDBC store")
     * @throws StoreUnavailableException when the database does not answer and the URL names none
     */
    public static Detected of(DataSource dataSource, Environment environment, String what) {
        try {
            return new Detected(JdbcDialect.detect(dataSource), true);
        } catch (StoreUnavailableException down) {
            JdbcDialect fromUrl = fromUrl(environment.getProperty("spring.datasource.url"));
            if (fromUrl == null) {
                throw down;
            }
            log.warn("{}: the database did not answer at start-up ({}); it is taken to be {} from spring.datasource.url,"
                    + " and its tables are not checked", what, down.getMessage(), fromUrl);
            return new Detected(fromUrl, false);
        }
    }

    /** The dialect a JDBC URL names, or {@code null}. */
    public static @Nullable JdbcDialect fromUrl(@Nullable String url) {
        if (url == null) {
            return null;
        }
        String lower = url.toLowerCase(Locale.ROOT);
        if (lower.startsWith("jdbc:postgresql:")) {
            return JdbcDialect.POSTGRESQL;
        }
        if (lower.startsWith("jdbc:mariadb:") || lower.startsWith("jdbc:mysql:")) {
            return JdbcDialect.MYSQL;
        }
        if (lower.startsWith("jdbc:h2:")) {
            return JdbcDialect.H2;
        }
        return null;
    }
}
