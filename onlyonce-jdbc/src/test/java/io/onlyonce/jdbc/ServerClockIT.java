package io.onlyonce.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.jdbc.sql.ServerClock;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The server-time expressions of PostgreSQL and MariaDB give the same epoch millisecond whatever
 * the session time zone, and agree with the servers' own zone-free epoch.
 */
class ServerClockIT {

    @RegisterExtension
    static final ScratchDatabase POSTGRES = ScratchDatabase.postgres().withoutSchema();

    @RegisterExtension
    static final ScratchDatabase MARIADB = ScratchDatabase.mariaDb().withoutSchema();

    @Test
    void postgresServerTimeIsTheSameInEveryTimeZone() throws Exception {
        sameInEveryZone(POSTGRES, List.of("UTC", "Asia/Tokyo", "America/New_York", "Pacific/Chatham"),
                zone -> "SET TIME ZONE '" + zone + "'",
                "FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint");
    }

    @Test
    void mariaDbServerTimeIsTheSameInEveryTimeZone() throws Exception {
        sameInEveryZone(MARIADB, List.of("+00:00", "+09:00", "-05:00", "+05:45"),
                zone -> "SET time_zone = '" + zone + "'",
                "UNIX_TIMESTAMP() * 1000");
    }

    /**
     * Reads the stores' expression in each zone and checks it against {@code reference}, a
     * zone-free epoch millisecond (whole seconds for MariaDB) read right after it.
     */
    private static void sameInEveryZone(ScratchDatabase database, List<String> zones, ZoneSetting setZone,
            String reference) throws SQLException {
        String now = ServerClock.nowMillis(database.dialect());
        try (Connection connection = database.dataSource().getConnection(); Statement statement = connection.createStatement()) {
            Long first = null;
            for (String zone : zones) {
                statement.execute(setZone.sql(zone));
                try (ResultSet row = statement.executeQuery("SELECT " + now + ", " + reference)) {
                    row.next();
                    long server = row.getLong(1);
                    long zoneFree = row.getLong(2);
                    assertThat(server).as(zone).isBetween(zoneFree - 1_000, zoneFree + 1_000);
                    if (first == null) {
                        first = server;
                    }
                    assertThat(server - first).as("%s against the first zone", zone).isBetween(0L, 10_000L);
                }
            }
        }
    }

    @FunctionalInterface
    private interface ZoneSetting {
        String sql(String zone);
    }
}
