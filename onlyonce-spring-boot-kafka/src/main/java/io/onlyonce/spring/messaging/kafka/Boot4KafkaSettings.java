package io.onlyonce.spring.messaging.kafka;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.CommonClientConfigs;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.kafka.autoconfigure.ConcurrentKafkaListenerContainerFactoryConfigurer;
import org.springframework.boot.kafka.autoconfigure.KafkaConnectionDetails;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;

/**
 * {@link KafkaSettings} from Spring Boot 4's {@code KafkaProperties} (module {@code spring-boot-kafka},
 * package {@code org.springframework.boot.kafka.autoconfigure}). Loaded on that line only.
 */
final class Boot4KafkaSettings implements KafkaSettings {

    private final KafkaProperties kafka;
    private final @Nullable KafkaConnectionDetails details;
    private final ObjectProvider<ConcurrentKafkaListenerContainerFactoryConfigurer> configurer;

    Boot4KafkaSettings(KafkaProperties kafka, @Nullable KafkaConnectionDetails details,
            ObjectProvider<ConcurrentKafkaListenerContainerFactoryConfigurer> configurer) {
        this.kafka = Objects.requireNonNull(kafka, "kafka");
        this.details = details;
        this.configurer = Objects.requireNonNull(configurer, "configurer");
    }

    @Override
    public Map<String, Object> producer() {
        return connected(kafka.buildProducerProperties(), details == null ? null : details.getProducer());
    }

    @Override
    public Map<String, Object> consumer() {
        return connected(kafka.buildConsumerProperties(), details == null ? null : details.getConsumer());
    }

    @Override
    public Map<String, Object> admin() {
        return connected(kafka.buildAdminProperties(), details == null ? null : details.getAdmin());
    }

    private static Map<String, Object> connected(Map<String, Object> built,
            KafkaConnectionDetails.@Nullable Configuration connection) {
        Map<String, Object> properties = new HashMap<>(built);
        if (connection != null) {
            properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, connection.getBootstrapServers());
            if (connection.getSecurityProtocol() != null) {
                properties.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, connection.getSecurityProtocol());
            }
        }
        return properties;
    }

    @Override
    public @Nullable String producerAcks() {
        return kafka.getProducer().getAcks();
    }

    @Override
    public Map<String, String> producerProperties() {
        return kafka.getProducer().getProperties();
    }

    @Override
    public Map<String, String> properties() {
        return kafka.getProperties();
    }

    @Override
    public void configure(ConcurrentKafkaListenerContainerFactory<Object, Object> factory,
            ConsumerFactory<Object, Object> consumers) {
        // looked up here, not when the settings are made: Boot's configurer depends on beans made from them
        ConcurrentKafkaListenerContainerFactoryConfigurer boot = configurer.getIfAvailable();
        if (boot != null) {
            boot.configure(factory, consumers);
        } else {
            factory.setConsumerFactory(consumers);
        }
    }
}
