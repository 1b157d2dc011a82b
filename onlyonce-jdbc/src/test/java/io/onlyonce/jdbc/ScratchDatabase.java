package io.onlyonce.jdbc;

import io.onlyonce.jdbc.sql.JdbcDialect;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.onlyonce.jdbc.sql.ServerClock;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A throwaway database for one test class: {@code oo_test_<random>} created on the server (or an
 * in-memory H2 database), given the schema by {@link JdbcSchema} and a HikariCP pool, dropped after
 * the class (and its {@code @Nested} classes). Register it as a static {@code @RegisterExtension} field.
 *
 * <p>The pool hands out connections in the {@link #using(PoolMode) mode asked for}: autocommit on
 * (the default), or off at READ COMMITTED or REPEATABLE READ. Its sessions run in the time zone {@value #PRIMARY_ZONE} (MariaDB
 * {@value #PRIMARY_OFFSET}); {@link #secondDataSource()} is another, small pool on the same database
 * in the same mode whose sessions run in {@value #SECOND_ZONE} (MariaDB {@value #SECOND_OFFSET}), as
 * a second application instance's might. The servers run in UTC, so neither zone is theirs.
 *
 * <p>Servers: PostgreSQL at {@code ONLYONCE_PG_URL} (default {@value #DEFAULT_PG_URL}) and MariaDB
 * at {@code ONLYONCE_MARIADB_URL} (default {@value #DEFAULT_MARIADB_URL}), read from a system
 * property or else an environment variable. The URL names the database used to create and drop the
 * scratch one.
 */
final class ScratchDatabase implements BeforeAllCallback, AfterAllCallback {

    static final String DEFAULT_PG_URL = "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";
    static final String DEFAULT_MARIADB_URL = "jdbc:mariadb://127.0.0.1:3306/test?user=root";

    /** Enough connections that the contract suites' 64 racing threads all hold one at once. */
    private static final int POOL_SIZE = 70;
    private static final int SECOND_POOL_SIZE = 4;
    static final String PRIMARY_ZONE = "Asia/Tokyo";
    static final String PRIMARY_OFFSET = "+09:00";
    static final String SECOND_ZONE = "America/New_York";
    static final String SECOND_OFFSET = "-05:00";

    /** How the pool hands out connections. */
    enum PoolMode {
        /** Autocommit on, the server's default isolation level. */
        AUTOCOMMIT(true, null),
        /** Autocommit off, READ COMMITTED. */
        READ_COMMITTED(false, "TRANSACTION_READ_COMMITTED"),
        /** Autocommit off, REPEATABLE READ. */
        REPEATABLE_READ(false, "TRANSACTION_REPEATABLE_READ"),
        /** Autocommit off, SERIALIZABLE. */
        SERIALIZABLE(false, "TRANSACTION_SERIALIZABLE");

        private final boolean autoCommit;
        private final String isolation;

        PoolMode(boolean autoCommit, String isolation) {
            this.autoCommit = autoCommit;
            this.isolation = isolation;
        }
    }
    private static final Pattern SERVER_URL = Pattern.compile("(jdbc:[a-z]+://)([^/]+)/([^?]*)(.*)");

    private final JdbcDialect dialect;
    private final String adminUrl;
    private final boolean withSchema;
    private final int poolSize;
    private String name = "";
    private String url = "";
    /** The registering class and its {@code @Nested} classes, which JUnit calls this for too, that are running. */
    private int classesRunning;
    private final PoolMode mode;
    private HikariDataSource pool;
    private HikariDataSource second;
    private HikariDataSource unreachable;

    private ScratchDatabase(JdbcDialect dialect, String adminUrl, boolean withSchema, int poolSize, PoolMode mode) {
        this.dialect = dialect;
        this.adminUrl = adminUrl;
        this.withSchema = withSchema;
        this.poolSize = poolSize;
        this.mode = mode;
    }

    static ScratchDatabase postgres() {
        return new ScratchDatabase(JdbcDialect.POSTGRESQL, setting("ONLYONCE_PG_URL", DEFAULT_PG_URL), true, POOL_SIZE, PoolMode.AUTOCOMMIT);
    }

    static ScratchDatabase mariaDb() {
        return new ScratchDatabase(JdbcDialect.MYSQL, setting("ONLYONCE_MARIADB_URL", DEFAULT_MARIADB_URL), true, POOL_SIZE, PoolMode.AUTOCOMMIT);
    }

    static ScratchDatabase h2() {
        return new ScratchDatabase(JdbcDialect.H2, "", true, POOL_SIZE, PoolMode.AUTOCOMMIT);
    }

    /** The same database left empty, with a small pool: for tests that create the tables themselves. */
    ScratchDatabase withoutSchema() {
        return new ScratchDatabase(dialect, adminUrl, false, 4, mode);
    }

    /** The same database whose pools hand out connections in {@code poolMode}. */
    ScratchDatabase using(PoolMode poolMode) {
        return new ScratchDatabase(dialect, adminUrl, withSchema, poolSize, poolMode);
    }

    JdbcDialect dialect() {
        return dialect;
    }

    /** The pool. */
    DataSource dataSource() {
        return pool;
    }

    /** Another pool on the same database, in the same mode, whose sessions run in another time zone. */
    synchronized DataSource secondDataSource() {
        if (second == null) {
            second = newPool(name + "-second", SECOND_POOL_SIZE, SECOND_ZONE, SECOND_OFFSET);
        }
        return second;
    }

    PoolMode mode() {
        return mode;
    }

    /** The isolation level the pool hands its connections out at, as the driver reports it. */
    int isolation() throws SQLException {
        try (Connection connection = pool.getConnection()) {
            return connection.unwrap(Connection.class).getTransactionIsolation();
        }
    }

    /**
     * The isolation level the stores run their own statements at on this pool after a conflict: at
     * most READ COMMITTED on PostgreSQL and H2, the pool's on MySQL and MariaDB.
     */
    int storeIsolation() throws SQLException {
        int pool = isolation();
        return dialect == JdbcDialect.MYSQL ? pool : Math.min(pool, Connection.TRANSACTION_READ_COMMITTED);
    }

    /** The database server's current epoch millisecond, read with the expression the stores use. */
    long serverNow() throws SQLException {
        return queryLong("SELECT " + ServerClock.nowMillis(dialect));
    }

    /**
     * A pool on the same server kind at a port where nothing listens (127.0.0.1:1), built without
     * connecting and giving up on a connection after 250 ms; empty for embedded H2.
     */
    synchronized Optional<DataSource> unreachableDataSource() {
        if (dialect == JdbcDialect.H2) {
            return Optional.empty();
        }
        if (unreachable == null) {
            Matcher url = matchServerUrl();
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(url.group(1) + "127.0.0.1:1/" + url.group(3) + url.group(4));
            config.setConnectionTimeout(250);
            config.setInitializationFailTimeout(-1);
            config.setMinimumIdle(0);
            config.setMaximumPoolSize(2);
            config.setPoolName("unreachable-" + name);
            unreachable = new HikariDataSource(config);
        }
        return Optional.of(unreachable);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws SQLException {
        if (classesRunning++ > 0) {
            return;
        }
        name = "oo_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        if (dialect == JdbcDialect.H2) {
            url = "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1";
        } else {
            execute(adminUrl, "CREATE DATABASE " + name);
            Matcher server = matchServerUrl();
            url = server.group(1) + server.group(2) + "/" + name + server.group(4);
        }
        pool = newPool(name, poolSize, PRIMARY_ZONE, PRIMARY_OFFSET);
        warmUp();
        if (withSchema) {
            JdbcSchema.apply(pool, dialect);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws SQLException {
        if (--classesRunning > 0) {
            return;
        }
        if (unreachable != null) {
            unreachable.close();
        }
        closePools();
        switch (dialect) {
            case POSTGRESQL -> execute(adminUrl, "DROP DATABASE " + name + " WITH (FORCE)");
            case MYSQL -> execute(adminUrl, "DROP DATABASE IF EXISTS " + name);
            case H2 -> execute(url, "SHUTDOWN");
        }
    }

    /** Runs an INSERT, UPDATE, DELETE or DDL statement with parameters, on its own connection, committed. */
    int update(String sql, Object... parameters) throws SQLException {
        try (Connection connection = pool.getConnection(); PreparedStatement statement = connection.prepareStatement(sql)) {
            bind(statement, parameters);
            int count = statement.executeUpdate();
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
            return count;
        }
    }

    /** Reads the rows of a query, each through {@code mapper}. */
    <T> List<T> query(String sql, RowMapper<T> mapper, Object... parameters) throws SQLException {
        try (Connection connection = pool.getConnection(); PreparedStatement statement = connection.prepareStatement(sql)) {
            bind(statement, parameters);
            try (ResultSet rows = statement.executeQuery()) {
                List<T> result = new ArrayList<>();
                while (rows.next()) {
                    result.add(mapper.map(rows));
                }
                return result;
            }
        }
    }

    /** The one long value of a query such as {@code SELECT COUNT(*) ...}. */
    long queryLong(String sql, Object... parameters) throws SQLException {
        return query(sql, rows -> rows.getLong(1), parameters).get(0);
    }

    /** Reads one row of a result set. */
    @FunctionalInterface
    interface RowMapper<T> {
        T map(ResultSet row) throws SQLException;
    }

    /** Takes every connection of the pool once, so that racing threads never wait for a new one. */
    private void warmUp() throws SQLException {
        List<Connection> held = new ArrayList<>();
        try {
            for (int i = 0; i < poolSize; i++) {
                held.add(pool.getConnection());
            }
        } finally {
            for (Connection connection : held) {
                connection.close();
            }
        }
    }

    private HikariDataSource newPool(String poolName, int size, String zone, String offset) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(size);
        config.setPoolName(poolName + "-" + mode.name().toLowerCase(Locale.ROOT));
        config.setAutoCommit(mode.autoCommit);
        if (mode.isolation != null) {
            config.setTransactionIsolation(mode.isolation);
        }
        config.setConnectionInitSql(switch (dialect) {
            case POSTGRESQL -> "SET TIME ZONE '" + zone + "'";
            case MYSQL -> "SET time_zone = '" + offset + "'";
            case H2 -> "SET TIME ZONE '" + zone + "'";
        });
        return new HikariDataSource(config);
    }

    private void closePools() {
        if (second != null) {
            second.close();
            second = null;
        }
        pool.close();
    }

    private static void execute(String jdbcUrl, String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private Matcher matchServerUrl() {
        Matcher url = SERVER_URL.matcher(adminUrl);
        if (!url.matches()) {
            throw new IllegalArgumentException("expected jdbc:<driver>://<host:port>/<database>[?<parameters>]: " + adminUrl);
        }
        return url;
    }

    private static void bind(PreparedStatement statement, Object... parameters) throws SQLException {
        for (int i = 0; i < parameters.length; i++) {
            statement.setObject(i + 1, parameters[i]);
        }
    }

    private static String setting(String key, String fallback) {
        String value = System.getProperty(key);
        if (value == null || value.isBlank()) {
            value = System.getenv(key);
        }
        return value == null || value.isBlank() ? fallback : value;
    }
}
