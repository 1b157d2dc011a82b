package io.onlyonce.messaging;

import io.onlyonce.StoreUnavailableException;
import io.onlyonce.support.StrictUtf8;
import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.messaging.internal.HeadersJson;
import io.onlyonce.messaging.internal.OutboxSql;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.Objects;

/**
 * Records {@link OutboxMessage}s in the outbox table ({@value MessagingSchema#MESSAGE_LOG_TABLE})
 * inside the caller's business transaction, so that a message exists if and only if the business
 * change that caused it committed.
 *
 * <pre>{@code
 * connection.setAutoCommit(false);
 * insertOrder(connection, order);
 * outbox.record(connection, new OutboxMessage(OutboxMessage.id(order.businessId(), "created"),
 *         "orders", "order.created", json, Map.of("X-Request-ID", requestId)));
 * connection.commit();
 * relay.wakeUp();                      // publish now rather than on the next poll
 * }</pre>
 *
 * <p>{@link #record} runs one INSERT on the given connection and nothing else: it never commits,
 * rolls back or opens a transaction. The row is PREPARED and due at once, on the database server's
 * clock. Recording an id that is already there inserts nothing and returns {@code false}, without
 * failing the caller's transaction (PostgreSQL {@code ON CONFLICT DO NOTHING}, MySQL and MariaDB
 * {@code INSERT IGNORE}, H2 a caught duplicate-key error, which H2 rolls back alone). After the
 * caller commits, it should call {@link OutboxRelay#wakeUp()} (the Spring integration does so after
 * commit), so that the message is published promptly rather than on the relay's next poll.
 *
 * <p>Thread-safe; one instance serves any number of connections.
 */
public final class JdbcOutbox {

    /** The most UTF-8 bytes of an exchange or routing key: an AMQP short string. */
    public static final int MAX_NAME_BYTES = 255;
    /**
     * The most characters of the headers as JSON: far below what every database's column holds
     * (MySQL's MEDIUMTEXT), so that MySQL's {@code INSERT IGNORE} can never cut them silently.
     */
    public static final int MAX_HEADERS_JSON_LENGTH = 1_000_000;

    private final OutboxSql sql;

    /** An outbox on a database of {@code dialect}, whose schema {@link MessagingSchema} created. */
    public JdbcOutbox(JdbcDialect dialect) {
        this.sql = new OutboxSql(Objects.requireNonNull(dialect, "dialect"));
    }

    /**
     * Inserts {@code message} as PREPARED, due now, in the transaction that {@code connection}
     * belongs to; it is published once that transaction commits.
     *
     * @param connection the connection of the business transaction; with autocommit on, the row is
     *     committed at once (and the atomicity with the business change is lost)
     * @return {@code true} if the message was recorded, {@code false} if a message with its id was
     *     already recorded (nothing changed)
     * @throws IllegalArgumentException when the message cannot be stored or published as it is (an
     *     exchange or routing key longer than 255 UTF-8 bytes, headers longer than
     *     {@value #MAX_HEADERS_JSON_LENGTH} characters as JSON, a NUL character, an unpaired
     *     surrogate), checked before any SQL runs
     * @throws OutboxUnavailableException when the INSERT fails (a {@link StoreUnavailableException});
     *     the caller's transaction must then be rolled back (PostgreSQL has aborted it)
     */
    public boolean record(Connection connection, OutboxMessage message) {
        Objects.requireNonNull(connection, "connection");
        checkStorable(message);
        String headers = HeadersJson.write(message.headers());
        if (headers.length() > MAX_HEADERS_JSON_LENGTH) {
            throw new IllegalArgumentException("the headers are longer than " + MAX_HEADERS_JSON_LENGTH + " characters as JSON");
        }
        try (PreparedStatement insert = connection.prepareStatement(sql.record().sql())) {
            insert.setString(1, message.id());
            insert.setString(2, message.exchange());
            insert.setString(3, message.routingKey());
            insert.setString(4, message.payload());
            insert.setString(5, headers);
            return sql.record().execute(insert);
        } catch (SQLException e) {
            throw new OutboxUnavailableException("outbox record", e);
        }
    }

    /**
     * Checks that every database keeps {@code message} unchanged and a broker accepts its names.
     *
     * @throws IllegalArgumentException when it does not
     */
    static void checkStorable(OutboxMessage message) {
        Objects.requireNonNull(message, "message");
        checkName("exchange", message.exchange());
        checkName("routingKey", message.routingKey());
        checkText("payload", message.payload());
        for (Map.Entry<String, String> header : message.headers().entrySet()) {
            if (header.getKey() == null || header.getKey().isEmpty() || header.getValue() == null) {
                throw new IllegalArgumentException("a header needs a name and a value");
            }
            checkText("header name", header.getKey());
            checkText("header " + header.getKey(), header.getValue());
        }
    }

    private static void checkName(String what, String name) {
        checkText(what, name);
        if (name.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
            throw new IllegalArgumentException(what + " is longer than " + MAX_NAME_BYTES + " UTF-8 bytes");
        }
    }

    private static void checkText(String what, String text) {
        if (text.indexOf('\0') >= 0) {
            throw new IllegalArgumentException(what + " contains a NUL character, which PostgreSQL cannot store");
        }
        if (!StrictUtf8.isWellFormed(text)) {
            throw new IllegalArgumentException(what + " is not well-formed UTF-16 (an unpaired surrogate)");
        }
    }
}
