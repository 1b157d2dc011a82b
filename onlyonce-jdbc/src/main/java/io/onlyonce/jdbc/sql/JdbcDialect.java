package io.onlyonce.jdbc.sql;

import io.onlyonce.StoreUnavailableException;
import java.util.Locale;
import javax.sql.DataSource;

/** The databases the JDBC stores speak to, each with its own SQL and schema script. */
public enum JdbcDialect {

    /** PostgreSQL 9.5 or later. */
    POSTGRESQL("postgresql"),
    /** MySQL 8 or MariaDB 10.3 or later, on InnoDB. */
    MYSQL("mysql"),
    /** H2 2.x, embedded or server. */
    H2("h2");

    private final String folder;

    JdbcDialect(String folder) {
        this.folder = folder;
    }

    /**
     * The classpath folder of this database's schema scripts, for example
     * {@code db/onlyonce/postgresql}; prefix it with {@code classpath:} to use it as a Flyway
     * location.
     */
    public String schemaLocation() {
        return "db/onlyonce/" + folder;
    }

    /**
     * The dialect for a {@link java.sql.DatabaseMetaData#getDatabaseProductName() product name}:
     * {@code PostgreSQL}, {@code MySQL}, {@code MariaDB} or {@code H2}, in any case.
     *
     * @throws IllegalArgumentException for any other database
     */
    public static JdbcDialect fromProductName(String productName) {
        String name = productName.trim().toLowerCase(Locale.ROOT);
        if (name.startsWith("postgresql")) {
            return POSTGRESQL;
        }
        if (name.startsWith("mysql") || name.startsWith("mariadb")) {
            return MYSQL;
        }
        if (name.equals("h2")) {
            return H2;
        }
        throw new IllegalArgumentException("unsupported database: " + productName);
    }

    /**
     * The dialect of the database behind {@code dataSource}, read from one connection's metadata.
     *
     * @throws StoreUnavailableException when no connection can be had
     * @throws IllegalArgumentException when the database is not supported
     */
    public static JdbcDialect detect(DataSource dataSource) {
        return Jdbc.run(dataSource, "dialect detection",
                connection -> fromProductName(connection.getMetaData().getDatabaseProductName()));
    }
}
