package io.onlyonce.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.messaging.internal.Backoff;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ConfigTest {

    @Test
    void relayDefaults() {
        RelayConfig config = RelayConfig.ofDefaults();
        assertThat(config.batchSize()).isEqualTo(100);
        assertThat(config.lease()).isEqualTo(Duration.ofSeconds(60));
        assertThat(config.publishTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.maxAttempts()).isEqualTo(10);
        assertThat(config.maxBackoff()).isEqualTo(Duration.ofMinutes(10));
        assertThat(config.pipelineDepth()).isEqualTo(2);
        assertThat(config.toBuilder().build()).isEqualTo(config);
        assertThat(config.toBuilder().pipelineDepth(5).build().toBuilder().build().pipelineDepth()).isEqualTo(5);
    }

    @Test
    void relayRefusesAPublishTimeoutThatIsNotShorterThanTheLease() {
        assertThatThrownBy(() -> RelayConfig.custom().lease(Duration.ofSeconds(5)).publishTimeout(Duration.ofSeconds(5)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shorter than the lease");
        assertThatThrownBy(() -> RelayConfig.custom().batchSize(0).build()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RelayConfig.custom().batchSize(1001).build()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RelayConfig.custom().pipelineDepth(0).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pipelineDepth must be 1 to 16");
        assertThatThrownBy(() -> RelayConfig.custom().pipelineDepth(17).build()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RelayConfig.custom().maxAttempts(0).build()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RelayConfig.custom().backoffJitter(1.0).build()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RelayConfig.custom().backoffMultiplier(0.5).build()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RelayConfig.custom().maxBackoff(Duration.ofMillis(10)).build())
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void consumerDefaultsAndChecks() {
        ConsumerConfig config = ConsumerConfig.ofDefaults();
        assertThat(config.maxAttempts()).isEqualTo(3);
        assertThat(config.retention()).isEqualTo(Duration.ofHours(24));
        assertThat(config.toBuilder().maxAttempts(5).build().maxAttempts()).isEqualTo(5);
        assertThatThrownBy(() -> ConsumerConfig.custom().maxAttempts(0).build()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ConsumerConfig.custom().lease(Duration.ZERO).build()).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void backoffGrowsWithJitterAndStaysUnderItsCap() {
        Backoff backoff = new Backoff(Duration.ofMillis(100), 2.0, 0.5, Duration.ofMillis(1_000));
        for (int i = 0; i < 200; i++) {
            assertThat(backoff.after(1)).isBetween(Duration.ofMillis(50), Duration.ofMillis(150));
            assertThat(backoff.after(3)).isBetween(Duration.ofMillis(200), Duration.ofMillis(600));
            assertThat(backoff.after(30)).isBetween(Duration.ofMillis(1), Duration.ofMillis(1_000));
        }
    }

    @Test
    void consumerNamesAreChecked() {
        assertThatThrownBy(() -> new IdempotentConsumer("has space", new org.h2.jdbcx.JdbcDataSource(), JdbcDialect.H2,
                (m, c) -> { }, ConsumerConfig.ofDefaults())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void deliveries() {
        assertThat(Delivery.PROCESSED.acknowledge()).isTrue();
        assertThat(Delivery.DUPLICATE.acknowledge()).isTrue();
        assertThat(Delivery.retry("x").acknowledge()).isFalse();
        assertThat(Delivery.deadLetter("x").kind()).isEqualTo(Delivery.Kind.DEAD_LETTER);
        assertThat(new Delivery.Processed()).isEqualTo(Delivery.PROCESSED);
    }

    @Test
    void theSchemaScriptsSplitIntoStatements() {
        for (JdbcDialect dialect : JdbcDialect.values()) {
            assertThat(MessagingSchema.statements(dialect)).as(dialect.name())
                    .anySatisfy(s -> assertThat(s).startsWith("CREATE TABLE IF NOT EXISTS onlyonce_message_log"))
                    .anySatisfy(s -> assertThat(s).startsWith("CREATE TABLE IF NOT EXISTS onlyonce_inbox"))
                    .allSatisfy(s -> assertThat(s).doesNotContain("--"));
        }
        assertThat(MessagingSchema.scriptLocation(JdbcDialect.MYSQL)).isEqualTo("db/onlyonce-messaging/mysql/V1__onlyonce_messaging.sql");
    }

    @Test
    void messageIds() {
        assertThat(OutboxMessage.id("u42_1715678901234_abcd12", "stock_deduct")).isEqualTo("u42_1715678901234_abcd12_stock_deduct");
        assertThat(OutboxMessage.id("订单", "paid")).startsWith("sha256:").hasSize(50);
    }
}
