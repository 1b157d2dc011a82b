package io.onlyonce.messaging.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.messaging.JdbcOutbox;
import io.onlyonce.messaging.MessageStatus;
import io.onlyonce.messaging.MessagingSchema;
import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.messaging.OutboxRelay;
import io.onlyonce.messaging.RelayConfig;
import io.onlyonce.messaging.UnroutableMessageException;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory.ConfirmType;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/** {@link RabbitMessageTransport#publishAll} against a real RabbitMQ, and the relay on PostgreSQL handing it a batch. */
class RabbitBatchPublishIT {

    static final String PG_URL = env("ONLYONCE_PG_URL", "jdbc:postgresql://127.0.0.1:5432/");

    static ScratchVhost vhost;
    static RabbitAdmin admin;
    static CachingConnectionFactory factory;
    /** Physical channels the publishing factory created. */
    static final AtomicInteger channelsCreated = new AtomicInteger();
    static RabbitMessageTransport transport;

    @BeforeAll
    static void setUp() {
        vhost = ScratchVhost.create("batch");
        admin = vhost.admin();
        factory = vhost.confirmingFactory();
        factory.addChannelListener((channel, transactional) -> channelsCreated.incrementAndGet());
        RabbitTemplate template = new RabbitTemplate(factory);
        template.setMandatory(true);
        transport = new RabbitMessageTransport(template, Duration.ofSeconds(10));
    }

    @AfterAll
    static void tearDown() {
        if (vhost != null) {
            vhost.close();
        }
    }

    private static RabbitTopology topology(String name) {
        RabbitTopology topology = RabbitTopology.forConsumer(name + ".events", "order.*", name);
        topology.declare(admin);
        return topology;
    }

    private static OutboxMessage message(String id, String exchange, String routingKey) {
        return new OutboxMessage(id, exchange, routingKey, "{\"orderNo\":\"" + id + "\"}", Map.of("X-Request-ID", "req-" + id));
    }

    private static List<OutboxMessage> messages(String prefix, int count, String exchange) {
        List<OutboxMessage> messages = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            messages.add(message(prefix + "-" + i, exchange, "order.paid"));
        }
        return messages;
    }

    private static Throwable failure(CompletableFuture<Void> future) {
        try {
            future.get(15, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        return null;
    }

    @Test
    void aBatchOf500IsConfirmedOnOneChannel() throws Exception {
        RabbitTopology topology = topology("five-hundred");
        transport.publish(message("warm-up", topology.exchange(), "order.paid")).get(10, TimeUnit.SECONDS);
        int channelsBefore = channelsCreated.get();

        List<CompletableFuture<Void>> futures = transport.publishAll(messages("b500", 500, topology.exchange()));

        assertThat(futures).hasSize(500);
        // publishAll waited for the batch's confirms: every future is already complete
        assertThat(futures).allSatisfy(future -> assertThat(future).isCompleted());
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        assertThat(channelsCreated.get() - channelsBefore).isLessThanOrEqualTo(1);
        assertThat(admin.getQueueInfo(topology.queue()).getMessageCount()).isEqualTo(501);
    }

    @Test
    void anUnroutableMessageFailsOnlyItsOwnFuture() {
        RabbitTopology topology = topology("one-unroutable");
        List<OutboxMessage> batch = messages("mixed", 20, topology.exchange());
        batch.set(7, message("mixed-lost", topology.exchange(), "invoice.created"));

        List<CompletableFuture<Void>> futures = transport.publishAll(batch);

        for (int i = 0; i < futures.size(); i++) {
            Throwable error = failure(futures.get(i));
            if (i == 7) {
                assertThat(error).isInstanceOf(UnroutableMessageException.class)
                        .hasMessageContaining("mixed-lost").hasMessageContaining("invoice.created");
            } else {
                assertThat(error).as("message %d", i).isNull();
            }
        }
        assertThat(admin.getQueueInfo(topology.queue()).getMessageCount()).isEqualTo(19);
    }

    @Test
    void aMissingExchangeClosesTheChannelUnderTheBatchAndTheNextBatchGoesOnANewOne() throws Exception {
        RabbitTopology topology = topology("missing-exchange");
        List<OutboxMessage> batch = messages("gone", 200, topology.exchange());
        batch.set(100, message("gone-x", "no-such-exchange", "order.paid"));

        List<CompletableFuture<Void>> futures = transport.publishAll(batch);

        int confirmed = 0;
        for (int i = 0; i < futures.size(); i++) {
            Throwable error = failure(futures.get(i));
            if (i == 100) {
                assertThat(error).isInstanceOfSatisfying(RabbitPublishException.class,
                        e -> assertThat(e.reason()).isEqualTo(RabbitPublishException.Reason.NACKED));
            } else if (error == null) {
                confirmed++;
            } else {
                // sent on the channel the broker closed, before the client saw it close
                assertThat(error).isInstanceOfSatisfying(RabbitPublishException.class,
                        e -> assertThat(e.reason()).isEqualTo(RabbitPublishException.Reason.NACKED));
            }
        }
        assertThat(admin.getQueueInfo(topology.queue()).getMessageCount()).isGreaterThanOrEqualTo(confirmed);

        List<CompletableFuture<Void>> next = transport.publishAll(messages("after-gone", 50, topology.exchange()));
        CompletableFuture.allOf(next.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
    }

    @Test
    void withTheConnectionRefusedEveryMessageFailsAtOnceAsNotSent() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort(); // closed again: nothing listens there
        }
        CachingConnectionFactory refused = new CachingConnectionFactory("127.0.0.1", port);
        refused.setPublisherConfirmType(ConfirmType.CORRELATED);
        refused.setPublisherReturns(true);
        refused.setConnectionTimeout(2_000);
        try {
            RabbitTemplate template = new RabbitTemplate(refused);
            template.setMandatory(true);
            RabbitMessageTransport down = new RabbitMessageTransport(template, Duration.ofSeconds(10));
            long start = System.nanoTime();

            List<CompletableFuture<Void>> futures = down.publishAll(messages("refused", 50, "any.events"));

            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
            assertThat(futures).hasSize(50).allSatisfy(future -> assertThatThrownBy(() -> future.getNow(null))
                    .cause().isInstanceOfSatisfying(RabbitPublishException.class, e -> {
                        assertThat(e.reason()).isEqualTo(RabbitPublishException.Reason.NOT_SENT);
                        assertThat(e.messageId()).startsWith("refused-");
                    }));
        } finally {
            refused.destroy();
        }
    }

    @Test
    void theRelayOnPostgresqlSendsAClaimedBatchOnOneChannel() throws Exception {
        RabbitTopology topology = topology("relay");
        transport.publish(message("relay-warm-up", topology.exchange(), "order.paid")).get(10, TimeUnit.SECONDS);
        String database = "oo_test_batch_" + UUID.randomUUID().toString().substring(0, 8);
        try (Connection c = DriverManager.getConnection(PG_URL + "postgres", "postgres", "");
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + database);
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(PG_URL + database);
        config.setUsername("postgres");
        config.setPassword("");
        config.setMaximumPoolSize(4);
        try (HikariDataSource pool = new HikariDataSource(config)) {
            MessagingSchema.apply(pool, JdbcDialect.POSTGRESQL);
            JdbcOutbox outbox = new JdbcOutbox(JdbcDialect.POSTGRESQL);
            try (Connection c = pool.getConnection()) {
                c.setAutoCommit(false);
                for (OutboxMessage message : messages("relayed", 300, topology.exchange())) {
                    outbox.record(c, message);
                }
                c.commit();
            }
            OutboxRelay relay = new OutboxRelay(pool, JdbcDialect.POSTGRESQL, transport,
                    RelayConfig.custom().batchSize(300).build());
            int channelsBefore = channelsCreated.get();

            assertThat(relay.pollOnce()).isEqualTo(300);

            assertThat(channelsCreated.get() - channelsBefore).isLessThanOrEqualTo(1);
            assertThat(relay.countByStatus()).containsEntry(MessageStatus.SUCCESS, 300L);
            assertThat(admin.getQueueInfo(topology.queue()).getMessageCount()).isEqualTo(301);
        } finally {
            try (Connection c = DriverManager.getConnection(PG_URL + "postgres", "postgres", "");
                    Statement s = c.createStatement()) {
                s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
            }
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
