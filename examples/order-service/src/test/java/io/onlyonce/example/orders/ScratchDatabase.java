package io.onlyonce.example.orders;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * A database of its own on the local PostgreSQL or MariaDB, created for one test class and dropped
 * after it: {@code ONLYONCE_PG_URL} (default {@code jdbc:postgresql://127.0.0.1:5432/}, user
 * postgres) and {@code ONLYONCE_MARIADB_URL} (default {@code jdbc:mariadb://127.0.0.1:3306/},
 * user root), as the other modules' tests read them.
 *
 * @param platform {@code postgresql} or {@code mariadb} (also the schema file's name)
 * @param url the database's JDBC URL
 * @param user the user
 * @param name the database's name
 */
record ScratchDatabase(String platform, String url, String user, String name) {

    static ScratchDatabase postgres() {
        return create("postgresql", setting("ONLYONCE_PG_URL", "jdbc:postgresql://127.0.0.1:5432/"), "postgres", "postgres");
    }

    static ScratchDatabase mariadb() {
        return create("mariadb", setting("ONLYONCE_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/"), "root", "");
    }

    private static ScratchDatabase create(String platform, String server, String user, String adminDatabase) {
        String base = server.endsWith("/") ? server : server.substring(0, server.lastIndexOf('/') + 1);
        String name = "oo_orders_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        ScratchDatabase database = new ScratchDatabase(platform, base + name, user, name);
        database.admin(base + adminDatabase, "CREATE DATABASE " + name);
        return database;
    }

    void drop() {
        String base = url.substring(0, url.lastIndexOf('/') + 1);
        if (platform.equals("postgresql")) {
            admin(base + "postgres", "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        } else {
            admin(base, "DROP DATABASE IF EXISTS " + name);
        }
    }

    /** Runs one query answering a number. */
    long count(String sql) {
        try (Connection connection = DriverManager.getConnection(url, user, "");
                Statement statement = connection.createStatement();
                var rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** Runs one query answering text, a row each. */
    java.util.List<String> strings(String sql) {
        try (Connection connection = DriverManager.getConnection(url, user, "");
                Statement statement = connection.createStatement();
                var rows = statement.executeQuery(sql)) {
            java.util.List<String> values = new java.util.ArrayList<>();
            while (rows.next()) {
                values.add(rows.getString(1));
            }
            return values;
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    private void admin(String adminUrl, String sql) {
        try (Connection connection = DriverManager.getConnection(adminUrl, user, "");
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    static String setting(String name, String fallback) {
        String value = System.getProperty(name, System.getenv(name));
        return value == null || value.isBlank() ? fallback : value;
    }
}
