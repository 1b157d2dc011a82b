package io.onlyonce.messaging.rabbit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.messaging.ConsumerConfig;
import io.onlyonce.messaging.ConsumerStats;
import io.onlyonce.messaging.Delivery;
import io.onlyonce.messaging.IdempotentConsumer;
import io.onlyonce.messaging.InboundMessage;
import io.onlyonce.messaging.MessageConsumer;
import io.onlyonce.messaging.MessageHandler;
import io.onlyonce.messaging.MessagingSchema;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A fresh H2 database with the message layer's schema (the inbox) and an effects table, and real
 * {@link IdempotentConsumer}s on it. The effects table has no unique key: a second effect of one
 * message would show as a second row. {@link #down} makes every new connection fail, as a database
 * outage does.
 */
final class InboxDatabase implements AutoCloseable {

    static final String INBOX = MessagingSchema.INBOX_TABLE;

    /** Short in-process backoff: the tests do not wait for production pauses. */
    static final ConsumerConfig CONFIG = ConsumerConfig.custom()
            .maxAttempts(3)
            .initialBackoff(Duration.ofMillis(1))
            .maxBackoff(Duration.ofMillis(5))
            .build();

    final HikariDataSource pool;
    final AtomicBoolean down = new AtomicBoolean();
    /** How often a handler ran, per message id. */
    final ConcurrentHashMap<String, AtomicInteger> handlerCalls = new ConcurrentHashMap<>();
    /** How often a message was handed to a consumer, per message id. */
    final ConcurrentHashMap<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
    /** The {@code x-delivery-count} header of the latest delivery, per message id (quorum queues). */
    final ConcurrentHashMap<String, String> deliveryCountHeaders = new ConcurrentHashMap<>();
    /** Deliveries flagged as redelivered by the broker. */
    final AtomicInteger redeliveries = new AtomicInteger();
    private final DataSource dataSource;

    InboxDatabase() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:h2:mem:rabbit-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=20000");
        config.setMaximumPoolSize(16);
        config.setAutoCommit(false);
        pool = new HikariDataSource(config);
        dataSource = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getConnection") && down.get()) {
                        throw new SQLException("connection refused (the test took the database down)", "08001");
                    }
                    try {
                        return method.invoke(pool, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        MessagingSchema.apply(pool, JdbcDialect.H2);
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE effects (id BIGINT AUTO_INCREMENT PRIMARY KEY, consumer VARCHAR(255), "
                    + "message_id VARCHAR(255), request_id VARCHAR(255), payload VARCHAR(10000))");
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The handler that writes one effect row. */
    static MessageHandler writeEffect(String consumer) {
        return (message, connection) -> {
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO effects (consumer, message_id, request_id, payload) VALUES (?, ?, ?, ?)")) {
                insert.setString(1, consumer);
                insert.setString(2, message.id());
                insert.setString(3, message.headers().get("X-Request-ID"));
                insert.setString(4, message.payload());
                insert.executeUpdate();
            }
        };
    }

    /** A real idempotent consumer named {@code name} running {@code handler}, counted. */
    MessageConsumer consumer(String name, MessageHandler handler) {
        MessageHandler counted = (message, connection) -> {
            handlerCalls.computeIfAbsent(message.id(), id -> new AtomicInteger()).incrementAndGet();
            handler.handle(message, connection);
        };
        IdempotentConsumer consumer = new IdempotentConsumer(name, dataSource, JdbcDialect.H2, counted, CONFIG);
        return new MessageConsumer() {
            @Override
            public String name() {
                return consumer.name();
            }

            @Override
            public Delivery process(InboundMessage message) {
                if (message.id() != null) {
                    deliveries.computeIfAbsent(message.id(), id -> new AtomicInteger()).incrementAndGet();
                }
                if (message.redelivered()) {
                    redeliveries.incrementAndGet();
                }
                String deliveryCount = message.headers().get("x-delivery-count");
                if (message.id() != null && deliveryCount != null) {
                    deliveryCountHeaders.put(message.id(), deliveryCount);
                }
                return consumer.process(message);
            }

            @Override
            public ConsumerStats stats() {
                return consumer.stats();
            }
        };
    }

    long count(String sql) {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            r.next();
            long value = r.getLong(1);
            c.commit();
            return value;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    int calls(String messageId) {
        AtomicInteger calls = handlerCalls.get(messageId);
        return calls == null ? 0 : calls.get();
    }

    int deliveries(String messageId) {
        AtomicInteger count = deliveries.get(messageId);
        return count == null ? 0 : count.get();
    }

    @Override
    public void close() {
        pool.close();
    }
}
