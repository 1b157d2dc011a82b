package io.onlyonce.bench.peers.namastack;

import io.namastack.outbox.handler.OutboxRecordMetadata;
import io.namastack.outbox.handler.OutboxTypedHandler;
import io.onlyonce.bench.peers.ConfirmedRabbitSend;
import io.onlyonce.bench.peers.Destination;
import io.onlyonce.bench.peers.OrderPlaced;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import tools.jackson.databind.json.JsonMapper;

/**
 * The namastack-outbox application: the JDBC starter, {@code @EnableScheduling} ("Required for
 * automatic outbox processing", namastack-outbox 1.0.0 quickstart), and one typed handler that
 * publishes each record to the broker and returns only once the broker acknowledged it. Version 1.0.0
 * has no broker module of its own; the handlers do what the namastack-outbox-kafka and
 * namastack-outbox-rabbit modules of its later versions do ({@code KafkaOutboxHandler}:
 * {@code kafkaOperations.send(record).get()}; {@code RabbitOutboxHandler}: a correlated send, then
 * the confirm awaited with {@code publisher-confirm-timeout} 2 s, failing on a nack or a return).
 */
@SpringBootApplication
@EnableScheduling
public class NamastackApp {

    /** Kafka: the record key is the outbox record key (the order id), the value the event's JSON. */
    @Bean
    @ConditionalOnProperty(name = "peers.broker", havingValue = "kafka")
    KafkaHandler kafkaHandler(KafkaTemplate<String, String> kafka, JsonMapper json, Destination peersDestination) {
        return new KafkaHandler(kafka, json, peersDestination.name());
    }

    /** RabbitMQ: the run's exchange, routing key {@value Destination#ROUTING_KEY}. */
    @Bean
    @ConditionalOnProperty(name = "peers.broker", havingValue = "rabbit")
    RabbitHandler rabbitHandler(RabbitTemplate rabbit, JsonMapper json, Destination peersDestination) {
        return new RabbitHandler(rabbit, json, peersDestination.name());
    }

    /** Publishes with {@code send(...).get()}: the handler returns once Kafka acknowledged. */
    public static final class KafkaHandler implements OutboxTypedHandler<OrderPlaced> {
        private final KafkaTemplate<String, String> kafka;
        private final JsonMapper json;
        private final String topic;

        KafkaHandler(KafkaTemplate<String, String> kafka, JsonMapper json, String topic) {
            this.kafka = kafka;
            this.json = json;
            this.topic = topic;
        }

        @Override
        public void handle(OrderPlaced payload, OutboxRecordMetadata metadata) {
            try {
                kafka.send(topic, metadata.getKey(), json.writeValueAsString(payload)).get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } catch (Exception e) {
                throw new IllegalStateException("kafka send failed", e);
            }
        }
    }

    /** Publishes with a correlation and waits for its confirm, as namastack-outbox-rabbit does. */
    public static final class RabbitHandler implements OutboxTypedHandler<OrderPlaced> {
        private final RabbitTemplate rabbit;
        private final JsonMapper json;
        private final String exchange;

        RabbitHandler(RabbitTemplate rabbit, JsonMapper json, String exchange) {
            this.rabbit = rabbit;
            this.json = json;
            this.exchange = exchange;
        }

        @Override
        public void handle(OrderPlaced payload, OutboxRecordMetadata metadata) {
            // namastack-outbox-rabbit's publisher-confirm-timeout in its example: 2 s
            ConfirmedRabbitSend.send(rabbit, exchange, metadata.getKey(), json.writeValueAsString(payload), 2_000);
        }
    }
}
