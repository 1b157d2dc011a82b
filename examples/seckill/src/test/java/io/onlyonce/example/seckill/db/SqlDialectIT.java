package io.onlyonce.example.seckill.db;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.example.seckill.support.ExternalDatabases;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * The list condition on the three databases, and why the writer plans its batch lookups for their
 * values on PostgreSQL: a generic plan made while the table was empty keeps scanning it.
 */
class SqlDialectIT {

    @Test
    void aListConditionFindsExactlyTheListedRowsOnEveryDatabase() throws Exception {
        String pg = ExternalDatabases.newName();
        String maria = ExternalDatabases.newName();
        try (Connection h2 = DriverManager.getConnection("jdbc:h2:mem:" + pg);
                Connection postgres = DriverManager.getConnection(ExternalDatabases.createPostgres(pg),
                        ExternalDatabases.postgresUser(), ExternalDatabases.postgresPassword());
                Connection mariadb = DriverManager.getConnection(ExternalDatabases.createMysql(maria),
                        ExternalDatabases.mysqlUser(), ExternalDatabases.mysqlPassword())) {
            for (Connection connection : List.of(h2, postgres, mariadb)) {
                SqlDialect dialect = SqlDialect.detect(new SingleConnectionDataSource(connection, true));
                JdbcClient jdbc = JdbcClient.create(new SingleConnectionDataSource(connection, true));
                jdbc.sql("CREATE TABLE t (id VARCHAR(20) NOT NULL PRIMARY KEY, n BIGINT NOT NULL)").update();
                for (int i = 1; i <= 30; i++) {
                    jdbc.sql("INSERT INTO t (id, n) VALUES (?, ?)").params("k" + i, i).update();
                }
                SqlDialect.Condition byId = dialect.anyOf("id", List.of("k3", "k30", "missing", "k3"), String.class);
                assertThat(jdbc.sql("SELECT n FROM t WHERE " + byId.sql() + " ORDER BY n").params(byId.parameters())
                        .query(Long.class).list()).as(dialect.name()).containsExactly(3L, 30L);
                SqlDialect.Condition byNumber = dialect.anyOf("n", List.of(7L, 8L, 99L), Long.class);
                assertThat(jdbc.sql("SELECT id FROM t WHERE " + byNumber.sql() + " ORDER BY n").params(byNumber.parameters())
                        .query(String.class).list()).as(dialect.name()).containsExactly("k7", "k8");
                assertThat(byId.sql()).isEqualTo(dialect == SqlDialect.POSTGRESQL ? "id = ANY(?)" : "id IN (?, ?, ?, ?)");
            }
        } finally {
            ExternalDatabases.dropPostgres(pg);
            ExternalDatabases.dropMysql(maria);
        }
    }

    @Test
    void aGenericPlanMadeOnAnEmptyTableScansItLaterUnlessTheTransactionPlansForItsValues() throws Exception {
        String name = ExternalDatabases.newName();
        try (Connection connection = DriverManager.getConnection(ExternalDatabases.createPostgres(name),
                ExternalDatabases.postgresUser(), ExternalDatabases.postgresPassword())) {
            JdbcClient jdbc = JdbcClient.create(new SingleConnectionDataSource(connection, true));
            // as seckill_reservations is made (V3__fast_path_reservations.sql)
            jdbc.sql("CREATE TABLE r (id VARCHAR(64) COLLATE \"C\" NOT NULL PRIMARY KEY, activity_id BIGINT NOT NULL, "
                    + "user_id BIGINT NOT NULL, product_id BIGINT NOT NULL, quantity INT NOT NULL, status VARCHAR(16) NOT NULL, "
                    + "order_no VARCHAR(32) COLLATE \"C\", reason VARCHAR(40), decided_at BIGINT NOT NULL)").update();
            jdbc.sql("PREPARE lookup(text[]) AS SELECT id, user_id, order_no, reason FROM r WHERE id = ANY($1)").update();
            String ids = IntStream.range(0, 500).mapToObj(i -> "'id" + i + "'").collect(Collectors.joining(","));
            for (int i = 0; i < 6; i++) { // the sale's first batches, on an empty table: the plan is made generic
                jdbc.sql("EXECUTE lookup(ARRAY[" + ids + "])").query((rs, n) -> rs.getString(1)).list();
            }
            jdbc.sql("INSERT INTO r SELECT 'id' || g, 1, g, 1, 1, 'ORDERED', 'o' || g, NULL, 0 FROM generate_series(1, 40000) g")
                    .update();

            // the generic plan, made for a table of no rows: every row read is compared with each of the
            // 500 values in turn ($1 is not known when the plan is made, so it cannot be hashed)
            assertThat(plan(jdbc, ids)).as("the kept generic plan").contains("Seq Scan", "ANY ($1)");

            connection.setAutoCommit(false);
            SqlDialect.POSTGRESQL.planForTheseValues(jdbc);
            // a plan for these 500 values and the table's present size: index lookups or a hashed list
            assertThat(plan(jdbc, ids)).as("planned for these values").doesNotContain("$1").contains("id499");
            connection.commit();
            connection.setAutoCommit(true);
            assertThat(plan(jdbc, ids)).as("SET LOCAL ends with the transaction").contains("ANY ($1)");
        } finally {
            ExternalDatabases.dropPostgres(name);
        }
    }

    private static String plan(JdbcClient jdbc, String ids) {
        return String.join("\n", jdbc.sql("EXPLAIN EXECUTE lookup(ARRAY[" + ids + "])").query(String.class).list());
    }
}
