package io.onlyonce.example.seckill.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * A database of its own for each test class on the local PostgreSQL (127.0.0.1:5432, user
 * {@code postgres}, no password) and MariaDB (127.0.0.1:3306, user {@code root}, no password),
 * named {@code oo_seckill_<random>} and dropped after the class. Hosts and users can be changed
 * with {@code SECKILL_IT_PG_HOST}, {@code SECKILL_IT_PG_USER}, {@code SECKILL_IT_PG_PASSWORD} and
 * {@code SECKILL_IT_MYSQL_HOST}, {@code SECKILL_IT_MYSQL_USER}, {@code SECKILL_IT_MYSQL_PASSWORD}.
 */
public final class ExternalDatabases {

    private ExternalDatabases() {
    }

    public static String newName() {
        return "oo_seckill_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }

    public static String postgresUser() {
        return env("SECKILL_IT_PG_USER", "postgres");
    }

    public static String postgresPassword() {
        return env("SECKILL_IT_PG_PASSWORD", "");
    }

    public static String mysqlUser() {
        return env("SECKILL_IT_MYSQL_USER", "root");
    }

    public static String mysqlPassword() {
        return env("SECKILL_IT_MYSQL_PASSWORD", "");
    }

    private static String postgresBase() {
        return "jdbc:postgresql://" + env("SECKILL_IT_PG_HOST", "127.0.0.1:5432") + "/";
    }

    private static String mysqlBase() {
        return "jdbc:mariadb://" + env("SECKILL_IT_MYSQL_HOST", "127.0.0.1:3306") + "/";
    }

    /** Creates the PostgreSQL database {@code name} and returns its JDBC URL. */
    public static String createPostgres(String name) {
        execute(postgresBase() + "postgres", postgresUser(), postgresPassword(), "CREATE DATABASE " + name);
        return postgresBase() + name;
    }

    /** Creates the PostgreSQL database {@code name} and points the service's data source at it. */
    public static void usePostgres(DynamicPropertyRegistry registry, String name) {
        String url = createPostgres(name);
        registry.add("spring.datasource.url", () -> url);
        registry.add("spring.datasource.username", ExternalDatabases::postgresUser);
        registry.add("spring.datasource.password", ExternalDatabases::postgresPassword);
    }

    /** Creates the MariaDB/MySQL database {@code name} and points the service's data source at it. */
    public static void useMysql(DynamicPropertyRegistry registry, String name) {
        String url = createMysql(name);
        registry.add("spring.datasource.url", () -> url);
        registry.add("spring.datasource.username", ExternalDatabases::mysqlUser);
        registry.add("spring.datasource.password", ExternalDatabases::mysqlPassword);
    }

    public static void dropPostgres(String name) {
        execute(postgresBase() + "postgres", postgresUser(), postgresPassword(), "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }

    /** Creates the MariaDB/MySQL database {@code name} and returns its JDBC URL. */
    public static String createMysql(String name) {
        execute(mysqlBase(), mysqlUser(), mysqlPassword(),
                "CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci");
        return mysqlBase() + name;
    }

    public static void dropMysql(String name) {
        execute(mysqlBase(), mysqlUser(), mysqlPassword(), "DROP DATABASE IF EXISTS " + name);
    }

    private static void execute(String url, String user, String password, String sql) {
        try (Connection connection = DriverManager.getConnection(url, user, password);
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot run '" + sql + "' on " + url + ": " + e.getMessage(), e);
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
