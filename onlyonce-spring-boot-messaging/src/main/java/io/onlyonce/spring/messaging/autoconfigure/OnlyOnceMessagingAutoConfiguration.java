package io.onlyonce.spring.messaging.autoconfigure;

import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.messaging.ConsumerConfig;
import io.onlyonce.messaging.IdempotentConsumer;
import io.onlyonce.messaging.InProcessBroker;
import io.onlyonce.messaging.JdbcInbox;
import io.onlyonce.messaging.JdbcOutbox;
import io.onlyonce.messaging.MessageConsumer;
import io.onlyonce.messaging.MessageTransport;
import io.onlyonce.messaging.MessagingSchema;
import io.onlyonce.messaging.PostgresWakeUp;
import io.onlyonce.messaging.OutboxRelay;
import io.onlyonce.messaging.RelayConfig;
import io.onlyonce.messaging.TransactionRunner;
import io.onlyonce.spring.OnlyOnceConfigurationException;
import io.onlyonce.spring.autoconfigure.OnlyOnceAutoConfiguration;
import io.onlyonce.spring.autoconfigure.OnlyOnceProperties;
import io.onlyonce.spring.autoconfigure.SchemaCheck;
import io.onlyonce.spring.autoconfigure.StartupDialect;
import io.onlyonce.spring.messaging.ConsumerDefinition;
import io.onlyonce.spring.messaging.MessageConsumers;
import io.onlyonce.spring.messaging.MessageLayerCounting;
import io.onlyonce.spring.messaging.SpringTransactionRunner;
import io.onlyonce.spring.messaging.TransactionalOutbox;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.SmartLifecycle;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The message layer in a Spring Boot application, when {@code onlyonce-messaging} is on
 * the classpath and the application has one {@code DataSource}: the {@link TransactionalOutbox},
 * the relay that publishes it, the transport ({@code onlyonce.messaging.transport}: in-process by
 * default, RabbitMQ or Kafka), and one idempotent consumer per {@link ConsumerDefinition} bean, bound to
 * its exchange and routing key on that transport; the RabbitMQ and Kafka sides are
 * auto-configurations of their own modules ({@code onlyonce-spring-boot-amqp}, {@code onlyonce-spring-boot-kafka}). Every bean backs off when the application defines
 * its own. What the layer does is counted in layer {@code message} of the statistics.
 */
@AutoConfiguration(after = OnlyOnceAutoConfiguration.class, afterName = {
    "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
    "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
    "org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration",
    "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration",
    // Spring Boot 3's names of the same
    "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
    "org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration",
    "org.springframework.boot.autoconfigure.amqp.RabbitAutoConfiguration",
    "org.springframework.boot.autoconfigure.kafka.KafkaAutoConfiguration"
})
@ConditionalOnClass({JdbcOutbox.class, PlatformTransactionManager.class})
@ConditionalOnBooleanProperty(name = "onlyonce.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "onlyonce.messaging.enabled", matchIfMissing = true)
@ConditionalOnSingleCandidate(DataSource.class)
public class OnlyOnceMessagingAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(OnlyOnceMessagingAutoConfiguration.class);

    /**
     * The messaging tables' dialect, after the schema was created when asked to and the tables were
     * found (start-up fails without them, naming both ways to create them). Held in its own
     * type so that it never competes with the JDBC store's {@link JdbcDialect} bean.
     */
    @Bean
    @ConditionalOnMissingBean
    @DependsOnDatabaseInitialization
    MessagingDatabase onlyOnceMessagingDatabase(DataSource dataSource, OnlyOnceProperties properties,
            org.springframework.core.env.Environment environment) {
        StartupDialect.Detected detected = StartupDialect.of(dataSource, environment, "OnlyOnce's message layer");
        JdbcDialect dialect = detected.dialect();
        if (!detected.answered()) {
            return new MessagingDatabase(dialect);
        }
        OnlyOnceProperties.SchemaInitialization mode = properties.messaging().initializeSchema();
        if (mode == OnlyOnceProperties.SchemaInitialization.ALWAYS
                || (mode == OnlyOnceProperties.SchemaInitialization.EMBEDDED && dialect == JdbcDialect.H2)) {
            MessagingSchema.apply(dataSource, dialect);
        }
        SchemaCheck check = new SchemaCheck("OnlyOnce's message layer (outbox and inbox)",
                List.of(MessagingSchema.MESSAGE_LOG_TABLE, MessagingSchema.INBOX_TABLE), MessagingSchema.location(dialect),
                MessagingSchema.SCRIPT_NAME, "onlyonce.messaging.initialize-schema");
        check.verify(dataSource, dialect);
        check.verifyColumn(dataSource, dialect, MessagingSchema.MESSAGE_LOG_TABLE, MessagingSchema.LEASE_COLUMN,
                MessagingSchema.SCRIPT_NAMES.get(1));
        return new MessagingDatabase(dialect);
    }

    @Bean
    @ConditionalOnMissingBean
    JdbcOutbox onlyOnceOutbox(MessagingDatabase messagingDatabase) {
        return new JdbcOutbox(messagingDatabase.dialect());
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    OutboxRelay onlyOnceOutboxRelay(DataSource dataSource, MessagingDatabase messagingDatabase,
            ObjectProvider<MessageTransport> transports, OnlyOnceProperties properties, OnlyOnceStatistics statistics) {
        MessageTransport transport = transports.getIfAvailable();
        if (transport == null) {
            throw missingTransport(properties.messaging().transport());
        }
        OnlyOnceProperties.Relay relay = properties.messaging().relay();
        RelayConfig config = RelayConfig.custom()
                .batchSize(relay.batchSize())
                .pollInterval(relay.pollInterval())
                .lease(relay.lease())
                .publishTimeout(relay.publishTimeout())
                .maxAttempts(relay.maxAttempts())
                .initialBackoff(relay.initialBackoff())
                .maxBackoff(relay.maxBackoff())
                .pipelineDepth(relay.pipelineDepth())
                .deleteSent(relay.deleteSent())
                .build();
        return new OutboxRelay(dataSource, messagingDatabase.dialect(), transport, config,
                MessageLayerCounting.relayListener(statistics));
    }

    @Bean
    @ConditionalOnMissingBean
    TransactionalOutbox onlyOnceTransactionalOutbox(DataSource dataSource, JdbcOutbox outbox, OutboxRelay relay,
            MessagingDatabase messagingDatabase, OnlyOnceProperties properties) {
        return new TransactionalOutbox(dataSource, outbox, relay, listenNotify(properties, messagingDatabase));
    }

    /** Whether {@code onlyonce.messaging.relay.listen-notify} is on; refused on a database other than PostgreSQL. */
    static boolean listenNotify(OnlyOnceProperties properties, MessagingDatabase messagingDatabase) {
        if (!properties.messaging().relay().listenNotify()) {
            return false;
        }
        if (messagingDatabase.dialect() != JdbcDialect.POSTGRESQL) {
            throw new OnlyOnceConfigurationException("onlyonce.messaging.relay.listen-notify=true needs PostgreSQL; the"
                    + " outbox is on " + messagingDatabase.dialect() + ".", "Remove onlyonce.messaging.relay.listen-notify:"
                    + " a relay in the instance that committed is woken without it, and the others poll every"
                    + " onlyonce.messaging.relay.poll-interval.");
        }
        return true;
    }

    @Bean
    @ConditionalOnMissingBean
    TransactionRunner onlyOnceTransactionRunner(DataSource dataSource, PlatformTransactionManager transactionManager) {
        return new SpringTransactionRunner(dataSource, transactionManager);
    }

    /** One idempotent consumer per definition, counted. */
    @Bean
    @ConditionalOnMissingBean
    MessageConsumers onlyOnceMessageConsumers(ObjectProvider<ConsumerDefinition> definitions,
            MessagingDatabase messagingDatabase, TransactionRunner transactions, OnlyOnceProperties properties,
            OnlyOnceStatistics statistics) {
        OnlyOnceProperties.Consumer settings = properties.messaging().consumer();
        ConsumerConfig config = ConsumerConfig.custom()
                .maxAttempts(settings.maxAttempts())
                .initialBackoff(settings.initialBackoff())
                .maxBackoff(settings.maxBackoff())
                .build();
        List<MessageConsumer> consumers = new ArrayList<>();
        definitions.orderedStream().forEach(definition -> consumers.add(MessageLayerCounting.counted(
                new IdempotentConsumer(definition.name(), messagingDatabase.dialect(), transactions, definition.handler(), config),
                statistics)));
        return new MessageConsumers(consumers);
    }

    /** The outbox's backlog as gauges ({@link OutboxMeters}), with Micrometer. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    @ConditionalOnBean(MeterRegistry.class)
    static class OutboxMetersConfiguration {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        OutboxMeters onlyOnceOutboxMeters(OutboxRelay relay, MeterRegistry registry, OnlyOnceProperties properties,
                ObjectProvider<ConsumerDefinition> definitions) {
            // the destinations this application consumes have their gauges from the start
            List<List<String>> known = definitions.orderedStream()
                    .filter(d -> !d.routingKey().contains("*") && !d.routingKey().contains("#"))
                    .map(d -> List.of(d.exchange(), d.routingKey())).distinct().toList();
            return OutboxMeters.bind(relay, registry, properties.messaging().metricsInterval(), known);
        }
    }

    /**
     * Starts the relay after the consumers are bound, stops it first; purges sent outbox rows and
     * inbox rows older than {@code onlyonce.messaging.purge-after} every ten minutes.
     */
    @Bean
    @ConditionalOnMissingBean(name = "onlyOnceMessagingLifecycle")
    SmartLifecycle onlyOnceMessagingLifecycle(OutboxRelay relay, DataSource dataSource,
            MessagingDatabase messagingDatabase, OnlyOnceProperties properties) {
        Duration purgeAfter = properties.messaging().purgeAfter();
        JdbcInbox inbox = new JdbcInbox(messagingDatabase.dialect());
        boolean listenNotify = listenNotify(properties, messagingDatabase);
        return new SmartLifecycle() {
            private ScheduledExecutorService housekeeping;
            private PostgresWakeUp wakeUp;

            @Override
            public synchronized void start() {
                relay.start();
                if (listenNotify) {
                    wakeUp = new PostgresWakeUp(dataSource, relay::wakeUp).start();
                }
                housekeeping = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread thread = new Thread(r, "onlyonce-messaging-purge");
                    thread.setDaemon(true);
                    return thread;
                });
                housekeeping.scheduleWithFixedDelay(() -> {
                    try {
                        relay.purgeSent(purgeAfter, 1_000);
                        inbox.purge(dataSource, purgeAfter, 1_000);
                    } catch (RuntimeException e) {
                        log.warn("OnlyOnce messaging purge failed: {}", e.toString());
                    }
                }, 1, 10, TimeUnit.MINUTES);
            }

            @Override
            public synchronized void stop() {
                if (housekeeping != null) {
                    housekeeping.shutdownNow();
                    housekeeping = null;
                }
                if (wakeUp != null) {
                    wakeUp.close();
                    wakeUp = null;
                }
                relay.stop();
            }

            @Override
            public synchronized boolean isRunning() {
                return housekeeping != null;
            }

            @Override
            public int getPhase() {
                return Integer.MAX_VALUE - 1000;
            }
        };
    }

    /** Why no transport bean exists for {@code configured}, and what to add. */
    static OnlyOnceConfigurationException missingTransport(OnlyOnceProperties.TransportType configured) {
        String property = "onlyonce.messaging.transport=" + configured.name().toLowerCase(java.util.Locale.ROOT)
                .replace('_', '-');
        String action = switch (configured) {
            case RABBIT -> "Add io.onlyonce:onlyonce-messaging-rabbit and spring-boot-starter-amqp to the dependencies";
            // Spring Boot 3.5 has its Kafka support in spring-boot-autoconfigure and no Kafka starter
            case KAFKA -> !org.springframework.util.ClassUtils.isPresent(
                    "org.springframework.boot.kafka.autoconfigure.KafkaProperties", OnlyOnceMessagingAutoConfiguration.class.getClassLoader())
                    && org.springframework.util.ClassUtils.isPresent(
                            "org.springframework.boot.autoconfigure.kafka.KafkaProperties", OnlyOnceMessagingAutoConfiguration.class.getClassLoader())
                    ? "Add io.onlyonce:onlyonce-messaging-kafka and org.springframework.kafka:spring-kafka to the dependencies"
                    : "Add io.onlyonce:onlyonce-messaging-kafka and spring-boot-starter-kafka to the dependencies";
            case IN_PROCESS -> "Leave onlyonce.messaging.transport unset for the in-process transport";
        };
        return new OnlyOnceConfigurationException("No OnlyOnce MessageTransport for " + property + ".",
                action + ", or declare your own MessageTransport bean.");
    }

    /** The in-process transport: the embedded default. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = "onlyonce.messaging.transport", havingValue = "in-process", matchIfMissing = true)
    static class InProcess {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(MessageTransport.class)
        InProcessBroker onlyOnceInProcessBroker(MessageConsumers consumers,
                ObjectProvider<ConsumerDefinition> definitions, OnlyOnceProperties properties) {
            InProcessBroker broker = new InProcessBroker();
            int workers = properties.messaging().consumer().workers();
            for (ConsumerDefinition definition : definitions.orderedStream().toList()) {
                MessageConsumer consumer = consumers.named(definition.name());
                broker.bind(definition.exchange(), definition.routingKey(), definition.name());
                broker.consume(definition.name(), consumer, workers);
            }
            return broker;
        }
    }
}
