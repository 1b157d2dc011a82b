package io.onlyonce.jdbc;

import io.onlyonce.jdbc.sql.JdbcDialect;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.jdbc.sql.ServerClock;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * H2's server time is this JVM's clock: the expression the stores use reads it as epoch
 * milliseconds in every session time zone (the JVM's default zone is neither UTC nor these; see
 * the module's surefire {@code argLine}).
 */
class ServerClockTest {

    @RegisterExtension
    static final ScratchDatabase H2 = ScratchDatabase.h2().withoutSchema();

    @ParameterizedTest
    @ValueSource(strings = {"UTC", "Asia/Tokyo", "America/New_York", "Pacific/Chatham", "+05:30"})
    void h2ServerTimeIsTheEpochMillisecondInEveryTimeZone(String zone) throws Exception {
        try (Connection connection = H2.dataSource().getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("SET TIME ZONE '" + zone + "'");
            long before = System.currentTimeMillis();
            long server;
            try (ResultSet row = statement.executeQuery("SELECT " + ServerClock.nowMillis(JdbcDialect.H2))) {
                row.next();
                server = row.getLong(1);
            }
            long after = System.currentTimeMillis();
            assertThat(server).isBetween(before, after);
        }
    }

    @Test
    void durationsAreWholePositiveMilliseconds() {
        assertThat(ServerClock.millis("lease", Duration.ofSeconds(30))).isEqualTo(30_000);
        assertThat(ServerClock.millis("lease", Duration.ofNanos(1))).isEqualTo(1);
        assertThat(ServerClock.millis("lease", Duration.ofNanos(2_999_999))).isEqualTo(2);
        assertThatThrownBy(() -> ServerClock.millis("lease", Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease");
        assertThatThrownBy(() -> ServerClock.millis("window", Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
    }
}
