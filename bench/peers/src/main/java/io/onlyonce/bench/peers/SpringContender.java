package io.onlyonce.bench.peers;

import io.namastack.outbox.Outbox;
import io.onlyonce.bench.peers.modulith.ModulithApp;
import io.onlyonce.bench.peers.namastack.NamastackApp;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * namastack-outbox or Spring Modulith, each in a Spring Boot application context of its own (the
 * other library's auto-configurations excluded). The business transaction is a
 * {@link TransactionTemplate} (what {@code @Transactional} on the service of both libraries'
 * examples does) around the {@link JdbcTemplate} insert and {@code outbox.schedule(event, key)}
 * (namastack-outbox quickstart, "Schedule Records Atomically") or
 * {@code publishEvent(event)} (Spring Modulith, "The Event Publication Registry").
 */
final class SpringContender implements Contender {

    private final ConfigurableApplicationContext context;
    private final TransactionTemplate transactions;
    private final JdbcTemplate jdbc;
    private final Outbox outbox;
    private final boolean namastack;

    SpringContender(String library, String jdbcUrl, int poolSize, Destination destination, Peers.Servers servers) throws Exception {
        this.namastack = library.equals("namastack");
        Map<String, Object> properties = new HashMap<>();
        properties.put("spring.main.banner-mode", "off");
        properties.put("logging.level.root", "WARN");
        properties.put("spring.datasource.url", jdbcUrl);
        properties.put("spring.datasource.username", "postgres");
        properties.put("spring.datasource.password", "");
        // the same pool for every contender: namastack-outbox's performance test size (maximum-pool-size 30)
        properties.put("spring.datasource.hikari.maximum-pool-size", poolSize);
        properties.put("spring.datasource.hikari.minimum-idle", poolSize);
        properties.put("peers.broker", destination.broker());
        properties.put("spring.kafka.bootstrap-servers", servers.kafkaBootstrap());
        properties.put("spring.rabbitmq.host", servers.rabbitHost());
        properties.put("spring.rabbitmq.port", servers.rabbitPort());
        properties.put("spring.rabbitmq.username", "guest");
        properties.put("spring.rabbitmq.password", "guest");
        // publisher confirms and returns: namastack-outbox-example-rabbit-java application.yml (and the
        // setting spring-modulith-events-amqp's outbox mode asserts: publisher-confirm-type=correlated)
        properties.put("spring.rabbitmq.publisher-confirm-type", "correlated");
        properties.put("spring.rabbitmq.publisher-returns", "true");
        properties.put("spring.rabbitmq.template.mandatory", "true");
        String exclude;
        Class<?> application;
        if (namastack) {
            application = NamastackApp.class;
            exclude = autoConfigurations("org.springframework.modulith.");
            // namastack-outbox 1.0.0, namastack-outbox-performance-tests/.../processor/application.yml: the
            // settings its authors tune throughput with (the quickstart's poll-interval 2000 and batch-size 10
            // are a demo's); the processor there replaces outboxTaskExecutor by virtual threads, which Java 17
            // has not: the platform-thread pool of these settings is used
            properties.put("namastack.outbox.batch-size", 1200);
            properties.put("namastack.outbox.poll-interval", 1000);
            properties.put("namastack.outbox.rebalance-interval", 10000);
            properties.put("namastack.outbox.retry.policy", "exponential");
            properties.put("namastack.outbox.retry.max-retries", 3);
            properties.put("namastack.outbox.retry.exponential.initial-delay", 1000);
            properties.put("namastack.outbox.retry.exponential.max-delay", 60000);
            properties.put("namastack.outbox.retry.exponential.multiplier", 2.0);
            properties.put("namastack.outbox.retry.jitter", 1000);
            properties.put("namastack.outbox.processing.stop-on-first-failure", true);
            properties.put("namastack.outbox.processing.delete-completed-records", true);
            properties.put("namastack.outbox.processing.publish-after-save", false);
            properties.put("namastack.outbox.processing.executor-core-pool-size", 16);
            properties.put("namastack.outbox.processing.executor-max-pool-size", 32);
            properties.put("namastack.outbox.instance.graceful-shutdown-timeout-seconds", 2);
            properties.put("namastack.outbox.instance.stale-instance-timeout-seconds", 10);
            properties.put("namastack.outbox.instance.heartbeat-interval-seconds", 5);
            // schema-initialization is on by default (reference "Automatic Schema Creation (JDBC Only)")
        } else {
            application = ModulithApp.class;
            exclude = autoConfigurations("io.namastack.");
            if (destination.broker().equals("rabbit")) {
                exclude += "," + autoConfigurations("org.springframework.modulith.events.kafka.");
            }
            // Spring Modulith reference, appendix "Configuration properties": the defaults are kept
            // (completion-mode update, externalization enabled, module-listener mode, JSON for KafkaTemplate);
            // the registry's table is created by its schema initialization
            properties.put("spring.modulith.events.jdbc.schema-initialization.enabled", true);
        }
        properties.put("spring.autoconfigure.exclude", exclude);
        this.context = new SpringApplicationBuilder(application).web(WebApplicationType.NONE).properties(properties)
                .initializers(c -> c.getBeanFactory().registerSingleton("peersDestination", destination))
                .logStartupInfo(false).run();
        this.transactions = context.getBean(TransactionTemplate.class);
        this.jdbc = context.getBean(JdbcTemplate.class);
        this.outbox = namastack ? context.getBean(Outbox.class) : null;
    }

    /** The auto-configurations on the class path whose names start with {@code prefix}, comma-separated. */
    private static String autoConfigurations(String prefix) throws Exception {
        TreeSet<String> names = new TreeSet<>();
        Enumeration<URL> files = SpringContender.class.getClassLoader()
                .getResources("META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports");
        while (files.hasMoreElements()) {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(files.nextElement().openStream(),
                    StandardCharsets.UTF_8))) {
                reader.lines().map(String::trim).filter(line -> line.startsWith(prefix)).forEach(names::add);
            }
        }
        return String.join(",", names);
    }

    @Override
    public void transaction(OrderPlaced event) {
        transactions.executeWithoutResult(status -> {
            jdbc.update(INSERT_ORDER, event.orderId(), event.item(), event.quantity());
            if (namastack) {
                outbox.schedule(event, event.orderId());
            } else {
                context.publishEvent(event);
            }
        });
    }

    @Override
    public void close() {
        context.close();
    }
}
