package io.onlyonce.spring.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.fixtures.BootLine;
import io.onlyonce.messaging.InProcessBroker;
import io.onlyonce.messaging.MessageTransport;
import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.messaging.kafka.KafkaMessageTransport;
import io.onlyonce.spring.autoconfigure.OnlyOnceAutoConfiguration;
import io.onlyonce.spring.messaging.autoconfigure.OnlyOnceMessagingAutoConfiguration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.listener.ContainerProperties;

/**
 * The Kafka side of the message layer's auto-configuration, without a broker (nothing here
 * connects): which beans exist on which class path and settings, the container factories'
 * settings, the user's own transport winning, and the producer settings that fail start-up.
 */
class KafkaMessagingAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(BootLine.with(new Class<?>[] {OnlyOnceAutoConfiguration.class,
                    OnlyOnceMessagingAutoConfiguration.class, OnlyOnceKafkaAutoConfiguration.class},
                    BootLine.DATA_SOURCE, BootLine.DATA_SOURCE_TRANSACTION_MANAGER, BootLine.TRANSACTION, BootLine.KAFKA))
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:oo-kafka-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
                    "onlyonce.token.secrets[0]=a-messaging-test-secret-0123456789abcdef",
                    "spring.kafka.bootstrap-servers=127.0.0.1:1");

    /** A transport of the application's own. */
    static final class OwnTransport implements MessageTransport {
        @Override
        public CompletableFuture<Void> publish(OutboxMessage message) {
            return CompletableFuture.completedFuture(null);
        }
    }

    @Test
    @SuppressWarnings("removal")
    void theContainerFactoriesRunInTheDataSourceTransactionAndCommitAfterIt() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(MessageTransport.class)).as("in-process stays the default")
                    .isInstanceOf(InProcessBroker.class);
            ConcurrentKafkaListenerContainerFactory<?, ?> records = context.getBean(
                    "onlyOnceKafkaListenerContainerFactory", ConcurrentKafkaListenerContainerFactory.class);
            ConcurrentKafkaListenerContainerFactory<?, ?> batches = context.getBean(
                    "onlyOnceKafkaBatchListenerContainerFactory", ConcurrentKafkaListenerContainerFactory.class);
            assertThat(records.isBatchListener()).isFalse();
            assertThat(batches.isBatchListener()).isTrue();
            assertThat(records.getContainerProperties().getTransactionManager())
                    .isSameAs(context.getBean(org.springframework.transaction.PlatformTransactionManager.class));
            assertThat(records.getContainerProperties().getAckMode()).isEqualTo(ContainerProperties.AckMode.BATCH);
            assertThat(batches.getContainerProperties().getTransactionManager())
                    .as("a batch runs in InboxBatchListener's transaction").isNull();
            assertThat(records.getContainerProperties().getKafkaConsumerProperties())
                    .containsEntry("enable.auto.commit", "false");
            assertThat(context).hasBean("kafkaListenerContainerFactory").as("Spring Boot's own factory stays");
        });
    }

    @Test
    @org.junit.jupiter.api.extension.ExtendWith(org.springframework.boot.test.system.OutputCaptureExtension.class)
    void aBrokerThatDoesNotAnswerAtStartUpIsLoggedAndStartUpGoesOn(org.springframework.boot.test.system.CapturedOutput output) {
        long start = System.nanoTime();
        runner.withPropertyValues("onlyonce.messaging.transport=kafka")
                .withBean("points", io.onlyonce.spring.messaging.ConsumerDefinition.class,
                        () -> io.onlyonce.spring.messaging.ConsumerDefinition.of("points", "orders", "order.paid",
                                (message, connection) -> { }))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output).contains("OnlyOnce: no Kafka broker at [127.0.0.1:1] answered within PT10S")
                            .contains("onlyonce.messaging.kafka.create-topics=false");
                });
        assertThat(java.time.Duration.ofNanos(System.nanoTime() - start)).as("one bounded wait, not 30 s per topic")
                .isLessThan(java.time.Duration.ofSeconds(25));
        assertThat(output.getOut().lines().filter(line -> line.contains("Rebootstrapping")).count())
                .as("no tight reconnect loop in the log (thousands a second without the backoff)").isLessThan(500);
    }

    @Test
    void aGroupInstanceIdThatKafkaWouldRefuseFailsStartUpNamingTheProperty() {
        runner.withPropertyValues("onlyonce.messaging.kafka.group-instance-id=host a:8080").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                    .hasMessageContaining("onlyonce.messaging.kafka.group-instance-id=host a:8080");
        });
        runner.withPropertyValues("onlyonce.messaging.kafka.group-instance-id=").run(context ->
                assertThat(context).as("empty: no static membership").hasNotFailed());
    }

    @Test
    void transportKafkaPublishesThroughKafka() {
        runner.withPropertyValues("onlyonce.messaging.transport=kafka").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(MessageTransport.class)).isInstanceOf(KafkaMessageTransport.class);
            assertThat(((KafkaMessageTransport) context.getBean(MessageTransport.class)).sendTimeout())
                    .hasSeconds(10);
        });
    }

    @Test
    void theApplicationsOwnTransportWins() {
        runner.withPropertyValues("onlyonce.messaging.transport=kafka")
                .withBean("ownTransport", MessageTransport.class, OwnTransport::new)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).getBeans(MessageTransport.class).hasSize(1);
                    assertThat(context.getBean(MessageTransport.class)).isInstanceOf(OwnTransport.class);
                });
    }

    @Test
    void weakProducerSettingsFailStartUpNamingTheProperty() {
        for (List<String> setting : List.of(List.of("spring.kafka.producer.acks=1", "spring.kafka.producer.acks"),
                List.of("spring.kafka.producer.properties[enable.idempotence]=false",
                        "spring.kafka.producer.properties[enable.idempotence]"),
                List.of("spring.kafka.properties[acks]=0", "spring.kafka.properties[acks]"))) {
            runner.withPropertyValues("onlyonce.messaging.transport=kafka", setting.get(0)).run(context -> {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure()).rootCause().hasMessageContaining(setting.get(1))
                        .hasMessageContaining("onlyonce.messaging.transport=kafka");
            });
        }
    }

    @Test
    void transportKafkaWithoutSpringKafkaFailsStartUpNamingWhatThisLineAdds() {
        // Spring Boot 3.5 has no Kafka starter: its Kafka support is in spring-boot-autoconfigure
        String kafka = BootLine.KAFKA.type().getName().startsWith("org.springframework.boot.autoconfigure.")
                ? "org.springframework.kafka:spring-kafka" : "spring-boot-starter-kafka";
        runner.withClassLoader(new FilteredClassLoader("org.springframework.kafka", "org.springframework.boot.kafka"))
                .withPropertyValues("onlyonce.messaging.transport=kafka")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .isInstanceOf(io.onlyonce.spring.OnlyOnceConfigurationException.class)
                        .hasMessageContaining("No OnlyOnce MessageTransport for onlyonce.messaging.transport=kafka")
                        .hasMessageContaining("Add io.onlyonce:onlyonce-messaging-kafka and " + kafka));
    }

    @Test
    void withoutSpringKafkaOrTheModuleNothingOfKafkaIsMade() {
        runner.withClassLoader(new FilteredClassLoader("org.springframework.kafka", "org.springframework.boot.kafka"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean("onlyOnceKafkaListenerContainerFactory")
                            .doesNotHaveBean(KafkaDeadLetters.class);
                    assertThat(context.getBean(MessageTransport.class)).isInstanceOf(InProcessBroker.class);
                });
        runner.withClassLoader(new FilteredClassLoader("io.onlyonce.messaging.kafka"))
                .withPropertyValues("onlyonce.messaging.transport=kafka")
                .withBean("ownTransport", MessageTransport.class, OwnTransport::new)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(KafkaMessageTransport.class)
                            .doesNotHaveBean("onlyOnceKafkaConsumers");
                    assertThat(context).hasBean("onlyOnceKafkaListenerContainerFactory")
                            .as("the listener factories need Spring Kafka only");
                });
        runner.withPropertyValues("onlyonce.messaging.enabled=false")
                .run(context -> assertThat(context).hasNotFailed()
                        .doesNotHaveBean("onlyOnceKafkaListenerContainerFactory"));
    }
}
