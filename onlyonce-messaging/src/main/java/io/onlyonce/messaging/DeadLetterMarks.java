package io.onlyonce.messaging;

import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.jdbc.sql.Jdbc;
import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.messaging.internal.InboxSql;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Base64;
import java.util.Objects;
import java.util.OptionalLong;
import javax.sql.DataSource;

/**
 * Which records of a log (a Kafka topic's partition) each consumer has dead-lettered, kept in the
 * inbox table ({@value MessagingSchema#INBOX_TABLE}), so that a record that is delivered again after
 * its dead letter was published is not published a second time. That happens when a consumer stops
 * or is killed after the broker acknowledged the dead letter and before the record's offset was
 * committed, and on every restart for a dead-lettered record whose offset a listener framework never
 * commits on its own.
 *
 * <p>A record is named by its position, {@code <topic>-<partition>@<offset>}, not by its message
 * id: a record without a message id has one, and a message re-driven from the dead-letter topic to
 * its topic is a new record at a new offset, processed again. A mark is a row of the inbox whose
 * consumer is {@code "dead-lettered <consumer>"} and whose message id is the position: the space
 * keeps it apart from every consumer's own rows (names are visible ASCII), so that the inbox of a
 * consumer still holds exactly the messages it processed. A name or a position too long for the
 * column is hashed ({@code sha256:} and base64url). {@link JdbcInbox#purge} deletes marks with the
 * rest: keep rows longer than a dead-lettered record may be delivered again.
 *
 * <p>The order that makes a dead letter reach its topic once, and never lose it: the consumer
 * {@link #record}s the mark before it publishes the dead letter, and commits the record's offset
 * after the broker acknowledged it. When {@link #record} finds a mark already there, the record was
 * given up on before and its dead letter may or may not have reached the broker (the consumer died
 * between the mark and the acknowledgement, or the publish failed): the consumer then looks for the
 * dead letter on its topic, from the time of the mark ({@link #markedAt}), and publishes only when
 * it is not there. A mark that cannot be written or read publishes the dead letter as without
 * marks. Each call runs on a connection of its own with its own transaction, outside the caller's,
 * so that a batch rolled back later keeps its marks. Thread-safe.
 */
public final class DeadLetterMarks {

    /** The start of the inbox's consumer column of a mark: what no consumer name contains (a space). */
    public static final String NAMESPACE_PREFIX = "dead-lettered ";

    private final DataSource dataSource;
    private final InboxSql sql;

    /**
     * Marks in the inbox table on {@code dataSource}, whose schema {@link MessagingSchema} created.
     *
     * @param dataSource the database of the consumer's inbox
     * @param dialect its dialect
     */
    public DeadLetterMarks(DataSource dataSource, JdbcDialect dialect) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.sql = new InboxSql(Objects.requireNonNull(dialect, "dialect"));
    }

    /**
     * When {@code consumer} marked the record at {@code offset} of {@code topic}'s {@code partition}
     * dead-lettered, on the database's clock.
     *
     * @param consumer the consumer: its name in the inbox, or its group id
     * @return the epoch milliseconds of the mark, or empty when there is none
     * @throws StoreUnavailableException when the database cannot be asked
     */
    public OptionalLong markedAt(String consumer, String topic, int partition, long offset) {
        String namespace = namespace(consumer);
        String position = position(topic, partition, offset);
        return Jdbc.run(dataSource, false, "dead-letter mark lookup", session -> session.step(connection -> {
            try (PreparedStatement select = connection.prepareStatement(sql.markedAt())) {
                select.setString(1, namespace);
                select.setString(2, position);
                try (ResultSet row = select.executeQuery()) {
                    return row.next() ? OptionalLong.of(row.getLong(1)) : OptionalLong.empty();
                }
            }
        }));
    }

    /**
     * Marks the record at {@code offset} of {@code topic}'s {@code partition} dead-lettered by
     * {@code consumer}, before its dead letter is published; committed before it returns. Marking
     * it again changes nothing.
     *
     * @param consumer as for {@link #markedAt}
     * @return true when the mark is new: publish; false when it was there: look for the dead letter first
     * @throws StoreUnavailableException when it could not be written
     */
    public boolean record(String consumer, String topic, int partition, long offset) {
        String namespace = namespace(consumer);
        String position = position(topic, partition, offset);
        return Jdbc.run(dataSource, false, "dead-letter mark", session -> session.step(connection -> {
            try (PreparedStatement insert = connection.prepareStatement(sql.record().sql())) {
                insert.setString(1, namespace);
                insert.setString(2, position);
                return sql.record().execute(insert);
            }
        }));
    }

    /**
     * The inbox's consumer column of {@code consumer}'s marks: {@value #NAMESPACE_PREFIX} and the
     * name, hashed when too long.
     *
     * @param consumer the consumer's group id or name, not empty
     * @return at most 255 characters, with a space
     */
    public static String namespace(String consumer) {
        Objects.requireNonNull(consumer, "consumer");
        if (consumer.isEmpty()) {
            throw new IllegalArgumentException("the consumer must not be empty");
        }
        boolean fits = consumer.length() <= IdempotencyKey.MAX_NAME_LENGTH - NAMESPACE_PREFIX.length()
                && !consumer.startsWith(IdempotencyKey.HASHED_NAME_PREFIX);
        return NAMESPACE_PREFIX + (fits ? consumer : sha256(consumer));
    }

    /**
     * The inbox's message id column of a mark: {@code <topic>-<partition>@<offset>}, hashed when
     * longer than 255 characters.
     *
     * @return 1 to 255 visible ASCII characters
     */
    public static String position(String topic, int partition, long offset) {
        Objects.requireNonNull(topic, "topic");
        if (topic.isEmpty()) {
            throw new IllegalArgumentException("the topic must not be empty");
        }
        return IdempotencyKey.derivedName(topic + "-" + partition + "@" + offset);
    }

    private static String sha256(String value) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
            return IdempotencyKey.HASHED_NAME_PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
    }

    @Override
    public String toString() {
        return "DeadLetterMarks[" + MessagingSchema.INBOX_TABLE + "]";
    }
}
