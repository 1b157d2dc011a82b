package io.onlyonce.verify.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrivatePostgresTest {

    @TempDir
    Path dir;

    private PrivatePostgres postgres;

    @AfterEach
    void cleanUp() {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void aCommittedRowSurvivesARestartAndAStop() throws Exception {
        int port = Ports.free();
        postgres = PrivatePostgres.start(dir.resolve("pg"), port);
        assertThat(postgres.jdbcUrl("shop")).isEqualTo("jdbc:postgresql://127.0.0.1:" + port + "/shop");
        assertThat(Files.getOwner(dir.resolve("pg/data")).getName()).isEqualTo("postgres");

        postgres.createDatabase("shop");
        try (Connection connection = postgres.connect("shop"); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE orders (id int PRIMARY KEY, business_id text NOT NULL)");
            statement.execute("INSERT INTO orders VALUES (1, 'intent-1')");
            try (ResultSet rs = statement.executeQuery("SHOW fsync")) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo("on");
            }
        }

        postgres.restart();
        assertThat(businessIds()).isEqualTo("intent-1");

        postgres.stop();
        assertThatThrownBy(() -> postgres.connect("shop").close()).isInstanceOf(SQLException.class);
        postgres.startAgain();
        assertThat(businessIds()).isEqualTo("intent-1");
    }

    @Test
    void startingOnAnExistingClusterKeepsItsData() throws Exception {
        int port = Ports.free();
        postgres = PrivatePostgres.start(dir, port);
        postgres.createDatabase("shop");
        postgres.close();

        postgres = PrivatePostgres.start(dir, port);
        try (Connection connection = postgres.connect("shop")) {
            assertThat(connection.isValid(2)).isTrue();
        }
    }

    private String businessIds() throws SQLException {
        try (Connection connection = postgres.connect("shop");
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT string_agg(business_id, ',' ORDER BY id) FROM orders")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
