package io.onlyonce.spring.messaging.kafka;

import io.onlyonce.messaging.DeadLetterMarks;
import io.onlyonce.messaging.DeliveryPolicy;
import io.onlyonce.messaging.JdbcInbox;
import io.onlyonce.messaging.MessageTransport;
import io.onlyonce.messaging.kafka.DeadLetterLookup;
import io.onlyonce.messaging.kafka.IdempotentKafkaConsumer;
import io.onlyonce.messaging.kafka.KafkaMessageTransport;
import io.onlyonce.messaging.kafka.KafkaTopics;
import io.onlyonce.spring.messaging.ConsumerDefinition;
import io.onlyonce.spring.messaging.MessageConsumers;
import io.onlyonce.spring.messaging.MessageLayerCounting;
import io.onlyonce.spring.OnlyOnceConfigurationException;
import io.onlyonce.spring.messaging.kafka.DeadLetterSerializer;
import io.onlyonce.spring.messaging.kafka.InboxAfterRollbackProcessor;
import io.onlyonce.spring.messaging.kafka.InboxBatchErrorHandler;
import io.onlyonce.spring.messaging.kafka.InboxBatchListener;
import io.onlyonce.spring.messaging.kafka.KafkaDeadLetters;
import io.onlyonce.spring.messaging.kafka.KafkaInboxInterceptor;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import io.onlyonce.spring.messaging.autoconfigure.OnlyOnceMessagingAutoConfiguration;
import io.onlyonce.spring.messaging.autoconfigure.ConsumersLifecycle;
import io.onlyonce.spring.messaging.autoconfigure.MessagingDatabase;
import io.onlyonce.spring.autoconfigure.OnlyOnceProperties;
import io.onlyonce.spring.autoconfigure.PropertyChecks;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.ClassUtils;

/**
 * The message layer on Kafka through Spring Boot's {@code spring.kafka.*} settings, on Spring Boot 4
 * (its {@code spring-boot-kafka} module, Spring Kafka 4) and on Spring Boot 3.5 (the Kafka support
 * of {@code spring-boot-autoconfigure}, Spring Kafka 3.3): the line is told at start-up by the
 * {@code KafkaProperties} class on the class path, and both feed the same beans. These are the
 * container factories {@code onlyOnceKafkaListenerContainerFactory} and
 * {@code onlyOnceKafkaBatchListenerContainerFactory} for {@code @KafkaListener} methods that take
 * effect once. Each container runs every delivery in a transaction of the application's transaction
 * manager; inside it the {@link KafkaInboxInterceptor} records {@code (group id, message-id)} in the
 * inbox before the listener runs and drops a duplicate; the offsets are committed after the
 * transaction; a failed delivery is rolled back, retried with a back-off and then published to
 * {@code <topic>.DLT} ({@link InboxAfterRollbackProcessor}), as the
 * {@link io.onlyonce.messaging.DeliveryPolicy DeliveryPolicy} of every OnlyOnce consumer decides.
 */
@AutoConfiguration(after = OnlyOnceMessagingAutoConfiguration.class, afterName = {
    "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration",
    // Spring Boot 3's name of the same
    "org.springframework.boot.autoconfigure.kafka.KafkaAutoConfiguration"
})
@ConditionalOnClass(name = "org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory")
@Conditional(OnlyOnceKafkaAutoConfiguration.OnKafkaProperties.class)
@ConditionalOnBean(MessageConsumers.class)
public class OnlyOnceKafkaAutoConfiguration {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(OnlyOnceKafkaAutoConfiguration.class);

    /** Spring Boot 4's {@code spring.kafka.*} properties. */
    static final String BOOT_4_PROPERTIES = "org.springframework.boot.kafka.autoconfigure.KafkaProperties";

    /** Spring Boot 3's {@code spring.kafka.*} properties. */
    static final String BOOT_3_PROPERTIES = "org.springframework.boot.autoconfigure.kafka.KafkaProperties";

    /** Spring Boot configured Kafka, on either line: its {@code KafkaProperties} bean is there. */
    static final class OnKafkaProperties extends AnyNestedCondition {

        OnKafkaProperties() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnBean(type = BOOT_4_PROPERTIES)
        static final class SpringBoot4 {
        }

        @ConditionalOnBean(type = BOOT_3_PROPERTIES)
        static final class SpringBoot3 {
        }
    }

    /** The settings from Spring Boot 4's {@code KafkaProperties}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = BOOT_4_PROPERTIES)
    static class SpringBoot4Settings {

        @Bean
        KafkaSettings onlyOnceKafkaSettings(org.springframework.boot.kafka.autoconfigure.KafkaProperties kafka,
                ObjectProvider<org.springframework.boot.kafka.autoconfigure.KafkaConnectionDetails> details,
                ObjectProvider<org.springframework.boot.kafka.autoconfigure.ConcurrentKafkaListenerContainerFactoryConfigurer> configurer) {
            return new Boot4KafkaSettings(kafka, details.getIfAvailable(), configurer);
        }
    }

    /** The settings from Spring Boot 3.5's {@code KafkaProperties}, named rather than linked. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = BOOT_3_PROPERTIES)
    @ConditionalOnMissingClass(BOOT_4_PROPERTIES)
    static class SpringBoot3Settings {

        @Bean
        KafkaSettings onlyOnceKafkaSettings(BeanFactory beans) {
            return Boot3KafkaSettings.from(beans, OnlyOnceKafkaAutoConfiguration.class.getClassLoader());
        }
    }

    /**
     * Fails start-up when the application's producer settings weaken what the message layer relies
     * on: {@code acks} other than {@code all}, or idempotence switched off.
     */
    static void checkDurability(KafkaSettings kafka) {
        String acks = kafka.producerAcks();
        String acksProperty = "spring.kafka.producer.acks";
        if (acks == null) {
            acks = kafka.producerProperties().get(ProducerConfig.ACKS_CONFIG);
            acksProperty = "spring.kafka.producer.properties[acks]";
        }
        if (acks == null) {
            acks = kafka.properties().get(ProducerConfig.ACKS_CONFIG);
            acksProperty = "spring.kafka.properties[acks]";
        }
        if (acks != null && !"all".equalsIgnoreCase(acks.trim()) && !"-1".equals(acks.trim())) {
            throw new OnlyOnceConfigurationException(
                    acksProperty + "=" + acks + " conflicts with onlyonce.messaging.transport=kafka: the relay marks a"
                            + " message sent on the broker's acknowledgement, which must mean every in-sync replica"
                            + " has it",
                    "Remove " + acksProperty + " or set it to all.");
        }
        String idempotence = kafka.producerProperties().get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG);
        String idempotenceProperty = "spring.kafka.producer.properties[enable.idempotence]";
        if (idempotence == null) {
            idempotence = kafka.properties().get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG);
            idempotenceProperty = "spring.kafka.properties[enable.idempotence]";
        }
        if (idempotence != null && "false".equals(idempotence.trim().toLowerCase(Locale.ROOT))) {
            throw new OnlyOnceConfigurationException(
                    idempotenceProperty + "=false conflicts with onlyonce.messaging.transport=kafka: without an"
                            + " idempotent producer a retried send can be written twice or out of order",
                    "Remove " + idempotenceProperty + " or set it to true.");
        }
    }

    /** Where OnlyOnce's Kafka listeners dead-letter a record, on a producer of their own. */
    @Bean(destroyMethod = "destroy")
    @ConditionalOnMissingBean(name = "onlyOnceKafkaDeadLetterTemplate")
    KafkaTemplate<Object, Object> onlyOnceKafkaDeadLetterTemplate(KafkaSettings kafka, OnlyOnceProperties properties) {
        Map<String, Object> config = kafka.producer();
        Serializer<Object> key = new DeadLetterSerializer(serializer(config.get(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG)));
        Serializer<Object> value = new DeadLetterSerializer(serializer(config.get(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG)));
        config.remove(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG);
        config.remove(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
        config.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
        long timeout = properties.messaging().kafka().sendTimeout().toMillis();
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeout);
        DefaultKafkaProducerFactory<Object, Object> factory = new DefaultKafkaProducerFactory<>(config, key, value);
        return new KafkaTemplate<>(factory);
    }

    @SuppressWarnings("unchecked")
    private static Serializer<Object> serializer(@Nullable Object configured) {
        try {
            if (configured instanceof Class<?> type) {
                return (Serializer<Object>) BeanUtils.instantiateClass(type);
            }
            if (configured instanceof String name && !name.isBlank()) {
                return (Serializer<Object>) BeanUtils.instantiateClass(
                        ClassUtils.forName(name.trim(), OnlyOnceKafkaAutoConfiguration.class.getClassLoader()));
            }
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the configured Kafka serializer " + configured + " is not on the class path", e);
        }
        return (Serializer<Object>) (Serializer<?>) new StringSerializer();
    }

    /**
     * Which records OnlyOnce's Kafka consumers and listeners dead-lettered, in the inbox table, so that
     * a record delivered again after a restart or a kill is not published to its {@code .DLT} again.
     */
    @Bean
    @ConditionalOnMissingBean
    DeadLetterMarks onlyOnceDeadLetterMarks(DataSource dataSource, MessagingDatabase messagingDatabase) {
        return new DeadLetterMarks(dataSource, messagingDatabase.dialect());
    }

    /**
     * The dead letters of the listener factories, marked in the inbox table when the Kafka module
     * (its {@code DeadLetterLookup}) is on the class path; without it, in memory as before.
     */
    @Bean
    @ConditionalOnMissingBean
    KafkaDeadLetters onlyOnceKafkaDeadLetters(KafkaTemplate<Object, Object> onlyOnceKafkaDeadLetterTemplate,
            OnlyOnceProperties properties, OnlyOnceStatistics statistics, DeadLetterMarks marks, KafkaSettings kafka) {
        Duration timeout = properties.messaging().kafka().sendTimeout();
        if (!ClassUtils.isPresent(LOOKUP, OnlyOnceKafkaAutoConfiguration.class.getClassLoader())) {
            return new KafkaDeadLetters(onlyOnceKafkaDeadLetterTemplate, timeout, statistics);
        }
        return new KafkaDeadLetters(onlyOnceKafkaDeadLetterTemplate, timeout, statistics, marks,
                ModuleLookup.of(kafka.consumer(), timeout));
    }

    /** The Kafka module's dead-letter lookup, named so that the factories run without the module. */
    static final String LOOKUP = "io.onlyonce.messaging.kafka.DeadLetterLookup";

    /** Loaded only when the Kafka module is on the class path. */
    static final class ModuleLookup {

        private ModuleLookup() {
        }

        static KafkaDeadLetters.Finder of(Map<String, Object> consumer, Duration timeout) {
            return new DeadLetterLookup(consumer, timeout)::contains;
        }
    }

    /** For {@code @KafkaListener(containerFactory = "onlyOnceKafkaListenerContainerFactory")}: one record at a time. */
    @Bean
    @ConditionalOnMissingBean(name = "onlyOnceKafkaListenerContainerFactory")
    ConcurrentKafkaListenerContainerFactory<Object, Object> onlyOnceKafkaListenerContainerFactory(
            KafkaSettings kafkaSettings, ObjectProvider<ConsumerFactory<Object, Object>> consumerFactory,
            DataSource dataSource,
            PlatformTransactionManager transactionManager, MessagingDatabase messagingDatabase,
            KafkaDeadLetters deadLetters, OnlyOnceProperties properties, OnlyOnceStatistics statistics,
            ObjectProvider<KafkaAdmin> admin) {
        return factory(false, kafkaSettings, consumerFactory, dataSource, transactionManager, messagingDatabase,
                deadLetters, properties, statistics, admin);
    }

    /** For {@code @KafkaListener(containerFactory = "onlyOnceKafkaBatchListenerContainerFactory")}: a poll's records at a time. */
    @Bean
    @ConditionalOnMissingBean(name = "onlyOnceKafkaBatchListenerContainerFactory")
    ConcurrentKafkaListenerContainerFactory<Object, Object> onlyOnceKafkaBatchListenerContainerFactory(
            KafkaSettings kafkaSettings, ObjectProvider<ConsumerFactory<Object, Object>> consumerFactory,
            DataSource dataSource,
            PlatformTransactionManager transactionManager, MessagingDatabase messagingDatabase,
            KafkaDeadLetters deadLetters, OnlyOnceProperties properties, OnlyOnceStatistics statistics,
            ObjectProvider<KafkaAdmin> admin) {
        return factory(true, kafkaSettings, consumerFactory, dataSource, transactionManager, messagingDatabase,
                deadLetters, properties, statistics, admin);
    }

    /*
     * Record listeners: Spring Kafka 4.1 runs the listener, and a record interceptor set with
     * interceptBeforeTx=false, inside TransactionTemplate.execute on the container's transaction
     * manager, which may be any PlatformTransactionManager (ContainerProperties#setTransactionManager,
     * deprecated since 3.2 for removal in favour of KafkaAwareTransactionManager, but kept in 4.1; the
     * Kafka-aware setter takes only Kafka transaction managers). With a transaction manager that is
     * not Kafka-aware no offset goes to a Kafka transaction: in AckMode.BATCH each record's offset is
     * queued while its transaction runs and committed by the consumer thread after the poll's records
     * were processed, at the start of its next poll loop. No CommonErrorHandler is set: with a
     * transaction manager Spring Kafka calls it inside the transaction and, once it recovered a
     * record, commits that transaction, the failed attempt's writes included; without one the
     * exception rolls the transaction back and the AfterRollbackProcessor retries and dead-letters.
     *
     * Batch listeners: the container's transaction does not fit, since a batch listener's offsets
     * are committed inside its callback (AckMode.BATCH, MANUAL, COUNT and TIME alike; RECORD is
     * refused for batch listeners), before the database commits. So the container has no transaction
     * manager and the listener is wrapped (InboxBatchListener): the inbox rows and the listener run in
     * a transaction that commits before the container commits the offsets; a failure is rolled back
     * before the error handler (InboxBatchErrorHandler) seeks the batch back or dead-letters.
     */
    @SuppressWarnings("removal")
    private static ConcurrentKafkaListenerContainerFactory<Object, Object> factory(boolean batch,
            KafkaSettings kafkaSettings, ObjectProvider<ConsumerFactory<Object, Object>> consumerFactory,
            DataSource dataSource,
            PlatformTransactionManager transactionManager, MessagingDatabase messagingDatabase,
            KafkaDeadLetters deadLetters, OnlyOnceProperties properties, OnlyOnceStatistics statistics,
            ObjectProvider<KafkaAdmin> admin) {
        ConsumerFactory<Object, Object> consumers = consumerFactory.getIfAvailable();
        if (consumers == null) {
            throw new OnlyOnceConfigurationException("OnlyOnce's Kafka listener container factories need a Kafka"
                    + " ConsumerFactory", "Let Spring Boot configure Kafka (spring.kafka.*) or define a ConsumerFactory bean.");
        }
        ConcurrentKafkaListenerContainerFactory<Object, Object> factory = new ConcurrentKafkaListenerContainerFactory<>();
        kafkaSettings.configure(factory, consumers);
        OnlyOnceProperties.Consumer settings = properties.messaging().consumer();
        OnlyOnceProperties.Kafka kafka = properties.messaging().kafka();
        // the rule of every OnlyOnce consumer; here a listener's attempts are deliveries of the record
        DeliveryPolicy policy = new DeliveryPolicy(settings.maxAttempts());
        KafkaInboxInterceptor interceptor = new KafkaInboxInterceptor(dataSource,
                new JdbcInbox(messagingDatabase.dialect()), deadLetters, statistics, policy);
        factory.setBatchListener(batch);
        InboxAfterRollbackProcessor retries = new InboxAfterRollbackProcessor(deadLetters, interceptor, statistics,
                policy, settings.initialBackoff(), settings.maxBackoff());
        ContainerProperties container = factory.getContainerProperties();
        container.setKafkaAwareTransactionManager(null);
        factory.setAfterRollbackProcessor(retries);
        factory.setRecordInterceptor(null);
        factory.setBatchInterceptor(null);
        if (batch) {
            factory.setCommonErrorHandler(new InboxBatchErrorHandler(retries));
            container.setTransactionManager(null);
        } else {
            factory.setRecordInterceptor(interceptor);
            factory.setCommonErrorHandler(null);
            container.setTransactionManager(transactionManager);
        }
        container.setAckMode(ContainerProperties.AckMode.BATCH);
        Properties overrides = new Properties();
        overrides.putAll(container.getKafkaConsumerProperties());
        overrides.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        container.setKafkaConsumerProperties(overrides);
        String instance = groupInstanceId(kafka);
        factory.setContainerCustomizer(c -> {
            c.setInterceptBeforeTx(false);
            if (instance != null) {
                // its own copy: the factory's properties are shared by every container it makes;
                // Spring Kafka appends -<n> for each of the container's consumers
                Properties own = new Properties();
                own.putAll(c.getContainerProperties().getKafkaConsumerProperties());
                own.setProperty(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instance + "-" + containerName(c, instance));
                c.getContainerProperties().setKafkaConsumerProperties(own);
            }
            if (batch) {
                Object listener = c.getContainerProperties().getMessageListener();
                if (!(listener instanceof BatchMessageListener<?, ?> batchListener)) {
                    throw new OnlyOnceConfigurationException("onlyOnceKafkaBatchListenerContainerFactory runs batch"
                            + " listeners only, not " + listener, "Use onlyOnceKafkaListenerContainerFactory for a"
                            + " listener of one record.");
                }
                @SuppressWarnings("unchecked")
                BatchMessageListener<Object, Object> delegate = (BatchMessageListener<Object, Object>) batchListener;
                c.setupMessageListener(new InboxBatchListener(delegate, interceptor, transactionManager, retries));
            }
            String[] topics = c.getContainerProperties().getTopics();
            KafkaAdmin kafkaAdmin = admin.getIfAvailable();
            if (kafka.createTopics() && topics != null && kafkaAdmin != null) {
                createMissing(kafkaAdmin, topics, kafka);
            }
        });
        return factory;
    }

    /**
     * {@code onlyonce.messaging.kafka.group-instance-id}, checked: null when empty.
     *
     * @throws OnlyOnceConfigurationException when Kafka would refuse it
     */
    static @Nullable String groupInstanceId(OnlyOnceProperties.Kafka kafka) {
        String id = kafka.groupInstanceId() == null ? "" : kafka.groupInstanceId().trim();
        if (id.isEmpty()) {
            return null;
        }
        if (id.length() > 200 || !id.matches("[a-zA-Z0-9._-]+")) {
            throw new OnlyOnceConfigurationException("onlyonce.messaging.kafka.group-instance-id=" + id
                    + " is not a Kafka group instance id: at most 200 of the characters a-z, A-Z, 0-9, '.', '_', '-'",
                    "Set it to a name unique per application instance and stable across its restarts,"
                            + " such as the host name and port, or leave it empty.");
        }
        return id;
    }

    /**
     * The container's listener id as a group instance id may hold it after {@code instance}: its
     * characters outside Kafka's replaced, its end kept when too long.
     */
    private static String containerName(org.springframework.kafka.listener.MessageListenerContainer container,
            String instance) {
        String id = container.getListenerId();
        if (id == null || id.isBlank()) {
            id = "listener";
        }
        String name = id.replaceAll("[^a-zA-Z0-9._-]", "_");
        int room = 240 - instance.length() - 1; // Kafka allows 249; Spring Kafka appends -<n>
        return name.length() <= room ? name : name.substring(name.length() - room);
    }

    /** The Kafka transport: the relay publishes on an idempotent producer of its own made from {@code spring.kafka.*}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.onlyonce.messaging.kafka.KafkaMessageTransport")
    @ConditionalOnProperty(name = "onlyonce.messaging.transport", havingValue = "kafka")
    static class Transport {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(MessageTransport.class)
        KafkaMessageTransport onlyOnceKafkaTransport(KafkaSettings kafka, OnlyOnceProperties properties) {
            checkDurability(kafka);
            Duration timeout = PropertyChecks.positive(properties.messaging().kafka().sendTimeout(), "onlyonce.messaging.kafka.send-timeout");
            return KafkaMessageTransport.create(kafka.producer(), timeout);
        }

        /**
         * One {@link IdempotentKafkaConsumer} per {@link ConsumerDefinition}: topic = its exchange,
         * message types = its routing key, group id = its name; the topic and {@code <topic>.DLT}
         * created at start-up when missing ({@code onlyonce.messaging.kafka.create-topics}).
         */
        @Bean
        @ConditionalOnMissingBean(name = "onlyOnceKafkaConsumers")
        SmartLifecycle onlyOnceKafkaConsumers(MessageConsumers consumers, ObjectProvider<ConsumerDefinition> definitions,
                KafkaSettings kafka, OnlyOnceProperties properties, OnlyOnceStatistics statistics,
                DeadLetterMarks marks) {
            List<ConsumerDefinition> all = definitions.orderedStream().toList();
            OnlyOnceProperties.Kafka settings = properties.messaging().kafka();
            List<IdempotentKafkaConsumer> kafkaConsumers = new ArrayList<>();
            if (!all.isEmpty()) {
                checkDurability(kafka);
                if (settings.createTopics()) {
                    createConsumerTopics(all, settings, kafka.admin());
                }
                Map<String, Object> consumerConfig = kafka.consumer();
                String instance = groupInstanceId(settings);
                if (instance != null) {
                    // one per group, each thread its own (the consumer appends -<thread>)
                    consumerConfig.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instance);
                }
                Map<String, Object> producerConfig = kafka.producer();
                for (ConsumerDefinition definition : all) {
                    kafkaConsumers.add(IdempotentKafkaConsumer.builder(consumers.named(definition.name()),
                                    consumerConfig, producerConfig)
                            .topic(definition.exchange())
                            .messageTypes(definition.routingKey())
                            .groupId(definition.name())
                            .maxDeliveries(settings.maxDeliveries())
                            .retryDelay(settings.retryDelay())
                            .threads(properties.messaging().consumer().workers())
                            .deadLetterMarks(marks)
                            // what the consumer dead-letters itself (its MessageConsumer counts its own)
                            .onOwnDeadLetter(reason -> statistics.record(MessageLayerCounting.LAYER, "dead_lettered",
                                    "consumer " + definition.name()))
                            .build());
                }
            }
            return new KafkaConsumersLifecycle(kafkaConsumers);
        }
    }

    /** Starts the Kafka consumers before the relay, stops them after it; closes them at shutdown. */
    static final class KafkaConsumersLifecycle extends ConsumersLifecycle<IdempotentKafkaConsumer> implements DisposableBean {

        KafkaConsumersLifecycle(List<IdempotentKafkaConsumer> consumers) {
            super(consumers, IdempotentKafkaConsumer::start, IdempotentKafkaConsumer::stop);
        }

        @Override
        public void destroy() {
            consumers().forEach(IdempotentKafkaConsumer::close);
        }
    }

    /** How long start-up waits for the broker to create the consumers' topics. */
    static final java.time.Duration TOPIC_CREATION_TIMEOUT = java.time.Duration.ofSeconds(10);

    /**
     * Creates each consumer's topic and its {@code .DLT} unless they exist. A broker that does not
     * answer within {@link #TOPIC_CREATION_TIMEOUT} is logged (one WARN naming it) and start-up goes
     * on, as with a database that is down: the consumers wait for the broker, and the relay keeps
     * the messages until it answers. A broker that refuses fails start-up.
     */
    private static void createConsumerTopics(List<ConsumerDefinition> definitions, OnlyOnceProperties.Kafka settings,
            Map<String, Object> admin) {
        Map<String, Object> config = new HashMap<>(admin);
        // a broker that cannot be reached: a retry a second, not a tight loop of log lines
        config.putIfAbsent("reconnect.backoff.ms", 1_000);
        config.putIfAbsent("retry.backoff.ms", 1_000);
        config.putIfAbsent("request.timeout.ms", (int) TOPIC_CREATION_TIMEOUT.toMillis());
        config.putIfAbsent("default.api.timeout.ms", (int) TOPIC_CREATION_TIMEOUT.toMillis());
        try (org.apache.kafka.clients.admin.Admin client = org.apache.kafka.clients.admin.Admin.create(config);
                KafkaTopics topics = new KafkaTopics(client, TOPIC_CREATION_TIMEOUT)) {
            for (ConsumerDefinition definition : definitions) {
                topics.ensureWithDeadLetter(definition.exchange(), settings.partitions(), settings.replicationFactor());
            }
        } catch (IllegalStateException e) {
            if (!(e.getCause() instanceof java.util.concurrent.TimeoutException)
                    && !(e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException)) {
                throw e;
            }
            log.warn("OnlyOnce: no Kafka broker at {} answered within {} to create the consumers' topics and their .DLT;"
                    + " start-up goes on, and the consumers and the relay wait for the broker (the topics must exist"
                    + " then; onlyonce.messaging.kafka.create-topics=false skips this step)",
                    admin.get("bootstrap.servers"), TOPIC_CREATION_TIMEOUT);
        }
    }

    /** Creates the dead-letter topics of {@code topics} that do not exist; never changes one that does. */
    private static void createMissing(KafkaAdmin kafkaAdmin, String[] topics, OnlyOnceProperties.Kafka kafka) {
        try (Admin admin = Admin.create(kafkaAdmin.getConfigurationProperties())) {
            Set<String> existing = admin.listTopics().names().get(kafkaAdmin.getOperationTimeout(), TimeUnit.SECONDS);
            List<NewTopic> missing = new ArrayList<>();
            for (String topic : topics) {
                String deadLetters = KafkaDeadLetters.topicOf(topic);
                if (!existing.contains(deadLetters)) {
                    missing.add(new NewTopic(deadLetters, kafka.partitions(), kafka.replicationFactor()));
                }
            }
            if (!missing.isEmpty()) {
                try {
                    admin.createTopics(missing).all().get(kafkaAdmin.getOperationTimeout(), TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating the dead-letter topics of " + List.of(topics), e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the dead-letter topics of " + List.of(topics) + " could not be created"
                    + " (onlyonce.messaging.kafka.create-topics=false leaves them to you): " + e, e);
        }
    }
}
