package io.onlyonce.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.messaging.ConsumerStats;
import io.onlyonce.messaging.Delivery;
import io.onlyonce.messaging.InboundMessage;
import io.onlyonce.messaging.MessageConsumer;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The builder's defaults and checks, without a broker. */
class IdempotentKafkaConsumerTest {

    static final MessageConsumer NOOP = new MessageConsumer() {
        @Override
        public String name() {
            return "stock";
        }

        @Override
        public Delivery process(InboundMessage message) {
            return Delivery.PROCESSED;
        }

        @Override
        public ConsumerStats stats() {
            return new ConsumerStats(0, 0, 0, 0, 0);
        }
    };

    static final Map<String, Object> SERVERS = Map.of("bootstrap.servers", "127.0.0.1:1");

    @Test
    void defaultsAreTheConsumersNameAsGroupAndTheDeadLetterTopicOfTheTopic() {
        try (IdempotentKafkaConsumer consumer = IdempotentKafkaConsumer.builder(NOOP, SERVERS, SERVERS).topic("orders").build()) {
            assertThat(consumer.groupId()).isEqualTo("stock");
            assertThat(consumer.deadLetterTopic()).isEqualTo("orders.DLT");
            assertThat(consumer.stats()).isEqualTo(new KafkaConsumerStats(0, 0, 0, 0, 0, 0));
            assertThat(consumer.isRunning()).isFalse();
        }
        try (IdempotentKafkaConsumer consumer = IdempotentKafkaConsumer.builder(NOOP,
                Map.of("bootstrap.servers", "127.0.0.1:1", "group.id", "configured"), SERVERS)
                .topic("orders").deadLetterTopic("dead").build()) {
            assertThat(consumer.groupId()).isEqualTo("configured");
            assertThat(consumer.deadLetterTopic()).isEqualTo("dead");
        }
    }

    @Test
    void weakDeadLetterSettingsAndBadArgumentsAreRefused() {
        assertThatThrownBy(() -> IdempotentKafkaConsumer.builder(NOOP, SERVERS, Map.of("acks", "1")).topic("t").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("acks");
        assertThatThrownBy(() -> IdempotentKafkaConsumer.builder(NOOP, SERVERS, SERVERS).build())
                .isInstanceOf(NullPointerException.class).hasMessageContaining("topic");
        assertThatThrownBy(() -> IdempotentKafkaConsumer.builder(NOOP, SERVERS, SERVERS).maxDeliveries(0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> IdempotentKafkaConsumer.builder(NOOP, SERVERS, SERVERS).threads(0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> IdempotentKafkaConsumer.builder(NOOP, SERVERS, SERVERS).messageTypes(""))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
