package io.onlyonce.spring.messaging.kafka;

import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.CommonClientConfigs;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * {@link KafkaSettings} from Spring Boot 3.5's {@code KafkaProperties} (package
 * {@code org.springframework.boot.autoconfigure.kafka} of {@code spring-boot-autoconfigure}). This jar
 * is compiled against Spring Boot 4, so Boot 3's classes are named, not linked: each method below is
 * looked up by name on the public type that declares it on that line and fails start-up when missing.
 */
final class Boot3KafkaSettings implements KafkaSettings {

    /** Spring Boot 3's package of its Kafka support. */
    static final String PACKAGE = "org.springframework.boot.autoconfigure.kafka.";

    private static final Class<?>[] NONE = {};

    private final Object kafka;
    private final @Nullable Object details;
    private final BeanFactory beans;
    private final @Nullable SslBundles sslBundles;
    private final Class<?> kafkaType;
    private final Class<?> producerType;
    private final Class<?> detailsType;
    private final Class<?> configurationType;
    private final Class<?> configurerType;

    private Boot3KafkaSettings(Object kafka, @Nullable Object details, BeanFactory beans,
            @Nullable SslBundles sslBundles, ClassLoader loader) {
        this.kafka = Objects.requireNonNull(kafka, "kafka");
        this.details = details;
        this.beans = beans;
        this.sslBundles = sslBundles;
        this.kafkaType = type("KafkaProperties", loader);
        this.producerType = type("KafkaProperties$Producer", loader);
        this.detailsType = type("KafkaConnectionDetails", loader);
        this.configurationType = type("KafkaConnectionDetails$Configuration", loader);
        this.configurerType = type("ConcurrentKafkaListenerContainerFactoryConfigurer", loader);
    }

    /** The settings of the Spring Boot 3 application whose beans {@code beans} holds. */
    static Boot3KafkaSettings from(BeanFactory beans, ClassLoader loader) {
        Object kafka = beans.getBean(type("KafkaProperties", loader));
        Object details = beans.getBeanProvider(type("KafkaConnectionDetails", loader)).getIfAvailable();
        return new Boot3KafkaSettings(kafka, details, beans, beans.getBeanProvider(SslBundles.class).getIfAvailable(),
                loader);
    }

    private static Class<?> type(String simpleName, ClassLoader loader) {
        return ClassUtils.resolveClassName(PACKAGE + simpleName, loader);
    }

    @Override
    public Map<String, Object> producer() {
        return connected(build("buildProducerProperties"), "getProducer");
    }

    @Override
    public Map<String, Object> consumer() {
        return connected(build("buildConsumerProperties"), "getConsumer");
    }

    @Override
    public Map<String, Object> admin() {
        return connected(build("buildAdminProperties"), "getAdmin");
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> build(String method) {
        return (Map<String, Object>) Objects.requireNonNull(
                call(kafka, kafkaType, method, new Class<?>[] {SslBundles.class}, sslBundles));
    }

    /** Boot's bootstrap servers and security protocol of this client from the connection details. */
    private Map<String, Object> connected(Map<String, Object> built, String client) {
        Map<String, Object> properties = new HashMap<>(built);
        if (details != null) {
            Object connection = call(details, detailsType, client, NONE);
            if (connection != null) {
                List<?> servers = (List<?>) call(connection, configurationType, "getBootstrapServers", NONE);
                properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, servers);
                Object protocol = call(connection, configurationType, "getSecurityProtocol", NONE);
                if (protocol != null) {
                    properties.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, protocol);
                }
            }
        }
        return properties;
    }

    @Override
    public @Nullable String producerAcks() {
        return (String) call(producer(kafka), producerType, "getAcks", NONE);
    }

    @Override
    @SuppressWarnings("unchecked")
    public Map<String, String> producerProperties() {
        return (Map<String, String>) Objects.requireNonNull(call(producer(kafka), producerType, "getProperties", NONE));
    }

    @Override
    @SuppressWarnings("unchecked")
    public Map<String, String> properties() {
        return (Map<String, String>) Objects.requireNonNull(call(kafka, kafkaType, "getProperties", NONE));
    }

    private Object producer(Object properties) {
        return Objects.requireNonNull(call(properties, kafkaType, "getProducer", NONE));
    }

    @Override
    public void configure(ConcurrentKafkaListenerContainerFactory<Object, Object> factory,
            ConsumerFactory<Object, Object> consumers) {
        // looked up here, not when the settings are made: Boot's configurer depends on beans made from them
        Object configurer = beans.getBeanProvider(configurerType).getIfAvailable();
        if (configurer != null) {
            call(configurer, configurerType, "configure",
                    new Class<?>[] {ConcurrentKafkaListenerContainerFactory.class, ConsumerFactory.class}, factory, consumers);
        } else {
            factory.setConsumerFactory(consumers);
        }
    }

    private static @Nullable Object call(Object target, Class<?> declaring, String name, Class<?>[] parameters,
            @Nullable Object... arguments) {
        Method method = ReflectionUtils.findMethod(declaring, name, parameters);
        if (method == null) {
            throw new IllegalStateException("Spring Boot 3's " + declaring.getName() + " has no method " + name
                    + " here: OnlyOnce's Kafka support needs Spring Boot 3.5 or 4.x");
        }
        return ReflectionUtils.invokeMethod(method, target, arguments);
    }
}
