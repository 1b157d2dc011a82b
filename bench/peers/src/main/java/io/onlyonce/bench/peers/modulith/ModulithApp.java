package io.onlyonce.bench.peers.modulith;

import io.onlyonce.bench.peers.ConfirmedRabbitSend;
import io.onlyonce.bench.peers.Destination;
import io.onlyonce.bench.peers.OrderPlaced;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.modulith.events.ApplicationModuleListener;
import org.springframework.scheduling.annotation.EnableAsync;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Spring Modulith application: the JDBC event publication registry
 * (spring-modulith-starter-jdbc) and, on Kafka, the externalization of {@code @Externalized}
 * events by spring-modulith-events-kafka (its default {@code module-listener} mode: an
 * {@code @ApplicationModuleListener}, asynchronous after the commit, whose publication completes when
 * the send's future does). The event type lies in the auto-configuration package, where the default
 * event selection looks ("only event types located within a Spring Boot auto-configuration package
 * and annotated with ... @Externalized", reference "Fundamentals of Event Externalization").
 *
 * <p>On RabbitMQ, spring-modulith-events-amqp is not available from the registry reachable here: the
 * registry guards an {@code @ApplicationModuleListener} of this application's own that sends as the
 * confirming transport of spring-modulith-events-amqp 2.1 does (a correlated send, the confirm awaited,
 * a nack fails it).
 */
@SpringBootApplication
@AutoConfigurationPackage(basePackageClasses = OrderPlaced.class)
@EnableAsync
public class ModulithApp {

    /** RabbitMQ only: the listener the registry records a publication for. */
    @Bean
    @ConditionalOnProperty(name = "peers.broker", havingValue = "rabbit")
    RabbitExternalizer rabbitExternalizer(RabbitTemplate rabbit, JsonMapper json, Destination peersDestination) {
        return new RabbitExternalizer(rabbit, json, peersDestination.name());
    }

    /** Sends each event to the run's exchange and waits for the confirm. */
    public static class RabbitExternalizer {
        private final RabbitTemplate rabbit;
        private final JsonMapper json;
        private final String exchange;

        RabbitExternalizer(RabbitTemplate rabbit, JsonMapper json, String exchange) {
            this.rabbit = rabbit;
            this.json = json;
            this.exchange = exchange;
        }

        /** Completes the event's publication when it returns. */
        @ApplicationModuleListener
        public void on(OrderPlaced event) {
            ConfirmedRabbitSend.send(rabbit, exchange, event.orderId(), json.writeValueAsString(event), 10_000);
        }
    }
}
