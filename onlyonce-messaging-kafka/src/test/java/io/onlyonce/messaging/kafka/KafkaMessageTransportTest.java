package io.onlyonce.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.messaging.OutboxMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

/** The transport's configuration and record mapping, without a broker. */
class KafkaMessageTransportTest {

    private static Map<String, Object> config(Object... pairs) {
        Map<String, Object> config = new LinkedHashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1");
        for (int i = 0; i < pairs.length; i += 2) {
            config.put((String) pairs[i], pairs[i + 1]);
        }
        return config;
    }

    @Test
    void aConfigWeakerThanAcksAllOrWithoutIdempotenceIsRefusedNamingTheSetting() {
        assertThatThrownBy(() -> KafkaMessageTransport.create(config("acks", "1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("acks");
        assertThatThrownBy(() -> KafkaMessageTransport.create(config("acks", 0)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("acks");
        assertThatThrownBy(() -> KafkaMessageTransport.create(config("enable.idempotence", "false")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("enable.idempotence");
        assertThatThrownBy(() -> KafkaMessageTransport.create(config("enable.idempotence", false)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("enable.idempotence");
        assertThatThrownBy(() -> KafkaMessageTransport.create(config(), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theProducerIsDurableAndItsWaitsAreBoundedByTheSendTimeout() {
        Map<String, Object> settings = ProducerSettings.of(config("acks", "-1"), Duration.ofSeconds(4));
        assertThat(settings).containsEntry("acks", "all").containsEntry("enable.idempotence", true)
                .containsEntry("max.block.ms", 4_000L).containsEntry("delivery.timeout.ms", 4_000)
                .containsEntry("linger.ms", 5L);
        assertThat((Integer) settings.get("request.timeout.ms")).isLessThanOrEqualTo(4_000 - 5);

        Map<String, Object> smaller = ProducerSettings.of(config("max.block.ms", "1000", "linger.ms", 0,
                "delivery.timeout.ms", 2000, "request.timeout.ms", 1500), Duration.ofSeconds(10));
        assertThat(smaller).containsEntry("max.block.ms", 1_000L).containsEntry("delivery.timeout.ms", 2_000)
                .containsEntry("request.timeout.ms", 1_500).containsEntry("linger.ms", 0L);

        KafkaMessageTransport.create(config(), Duration.ofSeconds(2)).close(); // the client accepts the bounded settings
    }

    @Test
    void aRecordCarriesTheIdTypeHeadersAndKey() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("X-Request-ID", "req-1");
        headers.put("key", "order-42");
        headers.put("note", "ünïcode");
        ProducerRecord<String, byte[]> record = KafkaMessageTransport.toRecord(
                new OutboxMessage("order-42_paid", "orders", "order.paid", "{\"a\":\"é\"}", headers));
        assertThat(record.topic()).isEqualTo("orders");
        assertThat(record.key()).isEqualTo("order-42");
        assertThat(new String(record.value(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":\"é\"}");
        Map<String, String> sent = new LinkedHashMap<>();
        for (Header header : record.headers()) {
            sent.put(header.key(), new String(header.value(), StandardCharsets.UTF_8));
        }
        assertThat(sent).containsExactly(Map.entry("message-id", "order-42_paid"), Map.entry("message-type", "order.paid"),
                Map.entry("content-type", "application/json"), Map.entry("X-Request-ID", "req-1"),
                Map.entry("note", "ünïcode"));

        ProducerRecord<String, byte[]> keyless = KafkaMessageTransport.toRecord(
                new OutboxMessage("m-1", "orders", "order.paid", "{}", Map.of()));
        assertThat(keyless.key()).isEqualTo("m-1");
    }
}
