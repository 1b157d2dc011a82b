package io.onlyonce.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Recording messages in the caller's transaction. */
abstract class OutboxSuite {

    private final AbstractMessagingTest t;

    OutboxSuite(AbstractMessagingTest test) {
        this.t = test;
    }

    private void insertBusinessRow(Connection connection, String id) throws Exception {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO test_business (id) VALUES (?)")) {
            insert.setString(1, id);
            insert.executeUpdate();
        }
    }

    @Test
    void aRolledBackBusinessTransactionLeavesNoMessage() throws Exception {
        JdbcOutbox outbox = new JdbcOutbox(t.dialect());
        String id = AbstractMessagingTest.uniqueId("order");
        assertThatThrownBy(() -> t.inTransaction(connection -> {
            insertBusinessRow(connection, id);
            assertThat(outbox.record(connection, AbstractMessagingTest.message(id))).isTrue();
            throw new IllegalStateException("the business transaction fails after recording");
        })).hasMessageContaining("business transaction fails");

        assertThat(t.outboxRows()).isZero();
        assertThat(t.database().queryLong("SELECT COUNT(*) FROM test_business")).isZero();
    }

    @Test
    void recordNeitherCommitsNorIsVisibleBeforeTheCallerCommits() throws Exception {
        JdbcOutbox outbox = new JdbcOutbox(t.dialect());
        String id = AbstractMessagingTest.uniqueId("order");
        t.inTransaction(connection -> {
            outbox.record(connection, AbstractMessagingTest.message(id));
            assertThat(t.outboxRows()).as("seen from another connection before the commit").isZero();
            return null;
        });
        assertThat(t.outboxRows()).isEqualTo(1);
    }

    @Test
    void aNewRowIsPreparedAndDueNowOnTheServerClock() throws Exception {
        String id = AbstractMessagingTest.uniqueId("order");
        long before = t.serverNow();
        t.recordCommitted(AbstractMessagingTest.message(id));
        long after = t.serverNow();

        AbstractMessagingTest.Row row = t.row(id);
        assertThat(row.status()).isEqualTo("PREPARED");
        assertThat(row.attempts()).isZero();
        assertThat(row.nextAttemptAtMs()).isBetween(before, after);
        assertThat(row.createdAtMs()).isBetween(before, after);
        assertThat(row.sendingOwner()).isNull();
        assertThat(row.sendingSinceMs()).isNull();
        assertThat(row.sentAtMs()).isNull();
        assertThat(row.lastError()).isNull();
        assertThat(row.headers()).isEqualTo("{\"X-Request-ID\":\"req-" + id + "\",\"content-type\":\"application/json\"}");
    }

    @Test
    void recordingAnIdTwiceKeepsOneRowAndTheCallersTransactionGoesOn() throws Exception {
        JdbcOutbox outbox = new JdbcOutbox(t.dialect());
        String id = AbstractMessagingTest.uniqueId("order");
        OutboxMessage first = AbstractMessagingTest.message(id);
        OutboxMessage second = new OutboxMessage(id, "other", "other.key", "{\"second\":true}", Map.of());

        t.inTransaction(connection -> {
            assertThat(outbox.record(connection, first)).isTrue();
            assertThat(outbox.record(connection, second)).as("the same id again, same transaction").isFalse();
            insertBusinessRow(connection, id); // PostgreSQL would refuse this in an aborted transaction
            return null;
        });
        boolean again = t.inTransaction(connection -> outbox.record(connection, second));

        assertThat(again).as("the same id again, later transaction").isFalse();
        assertThat(t.outboxRows()).isEqualTo(1);
        assertThat(t.row(id).payload()).isEqualTo(first.payload());
        assertThat(t.database().queryLong("SELECT COUNT(*) FROM test_business")).isEqualTo(1);
    }

    @Test
    void whatCannotBeStoredIsRefusedBeforeAnySqlRuns() throws Exception {
        JdbcOutbox outbox = new JdbcOutbox(t.dialect());
        String longName = "x".repeat(200) + "é".repeat(30); // 260 UTF-8 bytes
        t.inTransaction(connection -> {
            assertThatThrownBy(() -> outbox.record(connection,
                    new OutboxMessage("a1", longName, "k", "{}", Map.of()))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("exchange");
            assertThatThrownBy(() -> outbox.record(connection,
                    new OutboxMessage("a2", "e", "k", "{\"nul\":\"\u0000\"}", Map.of()))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("NUL");
            assertThatThrownBy(() -> outbox.record(connection,
                    new OutboxMessage("a3", "e", "k", "{}", Map.of("h", "\uD800")))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("surrogate");
            assertThat(outbox.record(connection, AbstractMessagingTest.message("a4"))).as("the transaction still works").isTrue();
            return null;
        });
        assertThat(t.outboxRows()).isEqualTo(1);
    }

    @Test
    void payloadAndHeadersReachTheTransportExactly() throws Exception {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("X-Request-ID", "7f1c\"quoted\"\\slash");
        headers.put("z-first", "订单 ✓ 😀");
        headers.put("a-second", "");
        headers.put("tab", "a\tb\nc");
        String payload = "{\"item\":\"雪糕 🍦\",\"quote\":\"\\\"\",\"n\":1.50}";
        OutboxMessage message = new OutboxMessage(OutboxMessage.id("u42_1715678901234_abcd12", "paid"), "交易所", "rk.é",
                payload, headers);
        t.recordCommitted(message);

        RecordingTransport transport = RecordingTransport.confirming();
        new OutboxRelay(t.dataSource(), t.dialect(), transport, RelayConfig.ofDefaults()).pollOnce();

        assertThat(transport.published()).containsExactly(message);
        assertThat(transport.published().get(0).headers().keySet()).containsExactly("X-Request-ID", "z-first", "a-second", "tab");
        assertThat(t.row(message.id()).status()).isEqualTo("SUCCESS");
    }
}
