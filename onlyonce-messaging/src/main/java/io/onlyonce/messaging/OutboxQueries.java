package io.onlyonce.messaging;

import io.onlyonce.StoreUnavailableException;
import io.onlyonce.jdbc.sql.Jdbc;
import io.onlyonce.jdbc.sql.ServerClock;
import io.onlyonce.messaging.internal.OutboxSql;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * What operators and dashboards ask of the outbox table, beside the relay's polls: resubmit a FAILED
 * message, purge sent rows, counts by status, the backlog per destination, the FAILED messages, one
 * row. Each call is one short operation on a connection of its own, on the database server's clock.
 */
final class OutboxQueries {

    private final DataSource dataSource;
    private final OutboxSql sql;

    OutboxQueries(DataSource dataSource, OutboxSql sql) {
        this.dataSource = dataSource;
        this.sql = sql;
    }

    /**
     * Puts a FAILED message back to PREPARED, due now, with its attempts reset to 0: after the
     * operator fixed what made it fail ({@link OutboxRelay#resubmit} wakes the relay as well).
     *
     * @return {@code false} when no FAILED message has this id (nothing changed)
     * @throws StoreUnavailableException when the database cannot be reached
     */
    public boolean resubmit(String messageId) {
        Objects.requireNonNull(messageId, "messageId");
        boolean resubmitted = Jdbc.run(dataSource, false, "outbox resubmit", session -> session.step(connection -> {
            try (PreparedStatement update = connection.prepareStatement(sql.resubmit())) {
                update.setString(1, messageId);
                return update.executeUpdate() == 1;
            }
        }));
        return resubmitted;
    }

    /**
     * Deletes SUCCESS rows sent at least {@code olderThan} ago on the database server's clock, in
     * batches of at most {@code batchSize} rows, each committed on its own, until a batch deletes
     * fewer. PREPARED, SENDING and FAILED rows are never purged.
     *
     * @return how many rows were deleted
     * @throws StoreUnavailableException when a batch fails (the batches before it stay deleted)
     */
    public int purgeSent(Duration olderThan, int batchSize) {
        long age = ServerClock.millis("olderThan", olderThan);
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be positive");
        }
        return Jdbc.run(dataSource, false, "outbox purge", session -> {
            int total = 0;
            int deleted;
            do {
                deleted = session.step(connection -> {
                    try (PreparedStatement delete = connection.prepareStatement(sql.purgeSent())) {
                        int i = 1;
                        delete.setLong(i++, age);
                        if (sql.purgeRepeatsAge()) {
                            delete.setLong(i++, age);
                        }
                        delete.setInt(i, batchSize);
                        return delete.executeUpdate();
                    }
                });
                total += deleted;
            } while (deleted == batchSize);
            return total;
        });
    }

    /**
     * The number of rows in each state (every state present, 0 when none). Counts the whole table:
     * for dashboards and health checks, not for every request.
     *
     * @throws StoreUnavailableException when the database cannot be reached
     */
    public Map<MessageStatus, Long> countByStatus() {
        return Jdbc.run(dataSource, false, "outbox count", session -> session.step(connection -> {
            Map<MessageStatus, Long> counts = new EnumMap<>(MessageStatus.class);
            for (MessageStatus status : MessageStatus.values()) {
                counts.put(status, 0L);
            }
            try (PreparedStatement select = connection.prepareStatement(sql.countByStatus());
                    ResultSet result = select.executeQuery()) {
                while (result.next()) {
                    counts.put(MessageStatus.valueOf(result.getString(1)), result.getLong(2));
                }
            }
            return Collections.unmodifiableMap(counts);
        }));
    }

    /**
     * What waits per destination (exchange and routing key): rows still to be sent and the age of
     * the oldest, and FAILED rows; destinations with neither are absent. One statement, on the
     * database server's clock, given at most {@code timeout} once it holds a connection: for
     * metrics read in the background, not for every request. The waiting rows are read through the
     * index the relay claims with; counting FAILED rows reads the table.
     *
     * @throws StoreUnavailableException when the database cannot be reached or does not answer in time
     */
    public List<OutboxBacklog> backlog(Duration timeout) {
        int seconds = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toSeconds()));
        return Jdbc.run(dataSource, false, "outbox backlog", session -> session.step(connection -> {
            Map<List<String>, long[]> byDestination = new LinkedHashMap<>();
            try (PreparedStatement select = connection.prepareStatement(sql.selectBacklog())) {
                select.setQueryTimeout(seconds);
                try (ResultSet result = select.executeQuery()) {
                    while (result.next()) {
                        long[] counts = byDestination.computeIfAbsent(List.of(result.getString(1), result.getString(2)),
                                d -> new long[3]);
                        if (result.getInt(3) == 0) {
                            counts[0] = result.getLong(4);
                            counts[1] = Math.max(0, result.getLong(5));
                        } else {
                            counts[2] = result.getLong(4);
                        }
                    }
                }
            }
            List<OutboxBacklog> backlog = new ArrayList<>(byDestination.size());
            byDestination.forEach((destination, counts) -> backlog.add(
                    new OutboxBacklog(destination.get(0), destination.get(1), counts[0], counts[1], counts[2])));
            return List.copyOf(backlog);
        }));
    }

    /**
     * The FAILED messages, oldest first, at most {@code limit}: what an operator looks at before a
     * {@link OutboxRelay#resubmit}. Scans the table.
     *
     * @throws StoreUnavailableException when the database cannot be reached
     */
    public List<OutboxEntry> failedMessages(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be positive");
        }
        return Jdbc.run(dataSource, false, "outbox failed", session -> session.step(connection -> {
            try (PreparedStatement select = connection.prepareStatement(sql.selectFailed())) {
                select.setInt(1, limit);
                try (ResultSet result = select.executeQuery()) {
                    List<OutboxEntry> entries = new ArrayList<>();
                    while (result.next()) {
                        entries.add(entry(result));
                    }
                    return List.copyOf(entries);
                }
            }
        }));
    }

    /**
     * The row of {@code messageId}, if the outbox holds it.
     *
     * @throws StoreUnavailableException when the database cannot be reached
     */
    public Optional<OutboxEntry> find(String messageId) {
        Objects.requireNonNull(messageId, "messageId");
        return Jdbc.run(dataSource, false, "outbox find", session -> session.step(connection -> {
            try (PreparedStatement select = connection.prepareStatement(sql.selectOne())) {
                select.setString(1, messageId);
                try (ResultSet result = select.executeQuery()) {
                    return result.next() ? Optional.of(entry(result)) : Optional.<OutboxEntry>empty();
                }
            }
        }));
    }

    private static OutboxEntry entry(ResultSet row) throws SQLException {
        return new OutboxEntry(row.getString(1), row.getString(2), row.getString(3), MessageStatus.valueOf(row.getString(4)),
                row.getInt(5), row.getString(6), row.getLong(7));
    }
}
