package io.onlyonce.spring.messaging.kafka;

import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;

/**
 * The application's {@code spring.kafka.*} settings as the Kafka side of the message layer reads
 * them, whichever Spring Boot line holds them: Boot 4's {@code KafkaProperties} in its
 * {@code spring-boot-kafka} module ({@link Boot4KafkaSettings}) or Boot 3.5's in
 * {@code spring-boot-autoconfigure} ({@link Boot3KafkaSettings}). Each client's settings are Boot's
 * own, with the {@code KafkaConnectionDetails} applied as Boot applies them to its own clients.
 */
interface KafkaSettings {

    /** The producer settings. */
    Map<String, Object> producer();

    /** The consumer settings. */
    Map<String, Object> consumer();

    /** The admin client's settings. */
    Map<String, Object> admin();

    /** {@code spring.kafka.producer.acks}, or {@code null} when unset. */
    @Nullable String producerAcks();

    /** {@code spring.kafka.producer.properties}. */
    Map<String, String> producerProperties();

    /** {@code spring.kafka.properties}. */
    Map<String, String> properties();

    /**
     * Applies Spring Boot's {@code spring.kafka.listener.*} settings to {@code factory} through Boot's
     * configurer, or only sets {@code consumers} when the application has no such configurer.
     *
     * @param factory the container factory
     * @param consumers its consumer factory
     */
    void configure(ConcurrentKafkaListenerContainerFactory<Object, Object> factory, ConsumerFactory<Object, Object> consumers);
}
