package io.onlyonce.messaging;

import io.onlyonce.StoreUnavailableException;
import io.onlyonce.jdbc.sql.Jdbc;
import io.onlyonce.messaging.internal.Backoff;
import io.onlyonce.messaging.internal.HeadersJson;
import io.onlyonce.messaging.internal.OutboxSql;
import io.onlyonce.messaging.internal.ShortError;
import io.onlyonce.messaging.internal.Transactions;
import io.onlyonce.store.OwnerToken;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * One poll of the {@link OutboxRelay}: claim a batch of due rows under a fresh fencing token,
 * publish them together outside any transaction, wait for the confirms at most the publish timeout,
 * and mark each row SUCCESS, back to PREPARED after its backoff, or FAILED (the relay's class
 * comment tells the whole protocol). Thread-safe: each call claims rows of its own.
 */
final class RelayPoll {

    private static final System.Logger LOG = System.getLogger(OutboxRelay.class.getName());

    private final DataSource dataSource;
    private final MessageTransport transport;
    private final RelayConfig config;
    private final OutboxListener listener;
    private final OutboxSql sql;
    private final Backoff backoff;
    private final RelayCounters counters;

    RelayPoll(DataSource dataSource, MessageTransport transport, RelayConfig config, OutboxListener listener, OutboxSql sql,
            RelayCounters counters) {
        this.dataSource = dataSource;
        this.transport = transport;
        this.config = config;
        this.listener = listener;
        this.sql = sql;
        this.backoff = new Backoff(config.initialBackoff(), config.backoffMultiplier(), config.backoffJitter(),
                config.maxBackoff());
        this.counters = counters;
    }

    /** One poll: claim, publish, await the confirms, mark; the number of rows claimed. */
    int run() {
        Batch batch = start();
        if (batch == null) {
            return 0;
        }
        finish(batch);
        return batch.size();
    }

    /**
     * The first half of a poll: claims a batch and hands it to the transport, without waiting for
     * the confirms; {@code null} when nothing was due. {@link #finish} completes it.
     *
     * @throws io.onlyonce.StoreUnavailableException when the claim fails (nothing was published)
     */
    @Nullable Batch start() {
        String owner = OwnerToken.random().value();
        List<ClaimedRow> rows = claim(owner);
        if (rows.isEmpty()) {
            return null;
        }
        counters.claimed.add(rows.size());
        List<Failure> exhausted = new ArrayList<>();
        List<ClaimedRow> publishable = new ArrayList<>(rows.size());
        for (ClaimedRow row : rows) {
            OutboxMessage message = row.message();
            if (message == null) {
                exhausted.add(new Failure(row, new IllegalStateException("the row cannot be read back: " + row.unreadable())));
            } else if (row.attempts() > config.maxAttempts()) {
                exhausted.add(new Failure(row, new TimeoutException("the lease of attempt " + (row.attempts() - 1)
                        + " passed before its relay marked it, and no attempts are left")));
            } else {
                publishable.add(row);
            }
        }
        long deadline = System.nanoTime() + config.publishTimeout().toNanos();
        return new Batch(owner, rows.size(), exhausted, publish(publishable), deadline);
    }

    /** The second half of a poll: waits for the batch's confirms until its publish timeout, and marks its rows. */
    void finish(Batch batch) {
        List<Failure> failures = new ArrayList<>();
        List<ClaimedRow> confirmed = new ArrayList<>();
        boolean interrupted = await(batch, confirmed, failures);
        try {
            mark(batch.owner(), confirmed, failures, batch.exhausted());
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Hands the batch to the transport at once; a transport that throws or answers badly fails the whole batch. */
    private Map<ClaimedRow, CompletableFuture<Void>> publish(List<ClaimedRow> rows) {
        Map<ClaimedRow, CompletableFuture<Void>> publishing = new LinkedHashMap<>();
        if (rows.isEmpty()) {
            return publishing;
        }
        List<OutboxMessage> messages = new ArrayList<>(rows.size());
        for (ClaimedRow row : rows) {
            messages.add(Objects.requireNonNull(row.message()));
        }
        List<CompletableFuture<Void>> futures;
        try {
            futures = transport.publishAll(messages);
            if (futures == null || futures.size() != rows.size()) {
                throw new IllegalStateException("the transport answered " + (futures == null ? "no" : futures.size())
                        + " futures for " + rows.size() + " messages");
            }
        } catch (RuntimeException e) {
            for (ClaimedRow row : rows) {
                publishing.put(row, CompletableFuture.failedFuture(e));
            }
            return publishing;
        }
        for (int i = 0; i < rows.size(); i++) {
            CompletableFuture<Void> future = futures.get(i);
            publishing.put(rows.get(i), future != null ? future
                    : CompletableFuture.failedFuture(new IllegalStateException("the transport returned no future")));
        }
        return publishing;
    }

    /**
     * Waits for the confirms until the publish timeout; sorts the rows into confirmed and failed.
     *
     * @return whether the thread was interrupted (its flag is cleared, so that marking can run)
     */
    private boolean await(Batch batch, List<ClaimedRow> confirmed, List<Failure> failures) {
        long deadline = batch.deadline();
        boolean interrupted = false;
        for (Map.Entry<ClaimedRow, CompletableFuture<Void>> entry : batch.publishing().entrySet()) {
            CompletableFuture<Void> future = entry.getValue();
            try {
                if (interrupted) {
                    if (!future.isDone()) {
                        // no confirm yet, and the relay no longer waits: a failed attempt, never a success
                        failures.add(new Failure(entry.getKey(), new TimeoutException("the relay stopped waiting for the confirm")));
                        continue;
                    }
                    future.getNow(null);
                } else {
                    future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                }
                confirmed.add(entry.getKey());
            } catch (TimeoutException e) {
                failures.add(new Failure(entry.getKey(), new TimeoutException("no confirm within " + config.publishTimeout())));
            } catch (ExecutionException | CancellationException | java.util.concurrent.CompletionException e) {
                failures.add(new Failure(entry.getKey(), ShortError.unwrap(e)));
            } catch (InterruptedException e) {
                interrupted = true;
                if (future.isDone() && !future.isCompletedExceptionally()) {
                    confirmed.add(entry.getKey());
                } else {
                    failures.add(new Failure(entry.getKey(), new TimeoutException("the relay stopped waiting for the confirm")));
                }
            }
        }
        if (interrupted) {
            return true;
        }
        return Thread.interrupted();
    }

    private void mark(String owner, List<ClaimedRow> confirmedRows, List<Failure> failures, List<Failure> exhausted) {
        List<ClaimedRow> confirmed = confirmedRows;
        try {
            Jdbc.<@Nullable Void>run(dataSource, false, "outbox mark", session -> {
                if (!confirmedRows.isEmpty()) {
                    int marked = session.step(connection -> markSent(connection, owner, confirmedRows));
                    if (marked < confirmedRows.size()) {
                        LOG.log(System.Logger.Level.DEBUG, "{0} of {1} confirmed rows had been claimed by another relay",
                                confirmedRows.size() - marked, confirmedRows.size());
                    }
                }
                return null;
            });
        } catch (StoreUnavailableException e) {
            LOG.log(System.Logger.Level.WARNING, "could not mark " + confirmed.size() + " confirmed messages SUCCESS;"
                    + " they stay SENDING and are sent again after their lease: " + ShortError.of(e));
            confirmed = List.of();
        }
        for (ClaimedRow row : confirmed) {
            counters.sent.increment();
            OutboxMessage message = Objects.requireNonNull(row.message());
            notifyListener(() -> listener.onSent(message));
        }
        for (Failure failure : exhausted) {
            markFailure(owner, failure, true);
        }
        for (Failure failure : failures) {
            markFailure(owner, failure, failure.row().attempts() >= config.maxAttempts());
        }
    }

    private int markSent(Connection connection, String owner, List<ClaimedRow> rows) throws SQLException {
        if (sql.bindsIdArrays()) {
            // one statement text whatever the batch's size: prepared once on the server
            try (PreparedStatement update = connection.prepareStatement(config.deleteSent() ? sql.deleteSentAny()
                    : sql.markSentAny())) {
                update.setString(1, owner);
                update.setArray(2, connection.createArrayOf("varchar", ids(rows)));
                return update.executeUpdate();
            }
        }
        try (PreparedStatement update = connection.prepareStatement(config.deleteSent() ? sql.deleteSent(rows.size())
                : sql.markSent(rows.size()))) {
            update.setString(1, owner);
            for (int i = 0; i < rows.size(); i++) {
                update.setString(i + 2, rows.get(i).id());
            }
            return update.executeUpdate();
        }
    }

    private static String[] ids(List<ClaimedRow> rows) {
        String[] ids = new String[rows.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = rows.get(i).id();
        }
        return ids;
    }

    private void markFailure(String owner, Failure failure, boolean giveUp) {
        ClaimedRow row = failure.row();
        String error = ShortError.of(failure.error());
        Duration wait = backoff.after(row.attempts());
        boolean marked;
        try {
            marked = Jdbc.run(dataSource, false, "outbox mark", session -> session.step(connection -> {
                try (PreparedStatement update = connection.prepareStatement(giveUp ? sql.markFailed() : sql.markRetry())) {
                    int i = 1;
                    if (!giveUp) {
                        update.setLong(i++, wait.toMillis());
                    }
                    update.setString(i++, error);
                    update.setString(i++, row.id());
                    update.setString(i, owner);
                    return update.executeUpdate() == 1;
                }
            }));
        } catch (StoreUnavailableException e) {
            LOG.log(System.Logger.Level.WARNING, "could not mark message " + row.id() + " after a failed publish;"
                    + " it stays SENDING and is tried again after its lease: " + ShortError.of(e));
            return;
        }
        if (!marked) {
            return; // another relay claimed it after our lease passed: it is theirs now
        }
        OutboxMessage message = row.message();
        if (giveUp) {
            counters.failed.increment();
            int attempts = row.attempts() > config.maxAttempts() ? row.attempts() - 1 : row.attempts();
            LOG.log(System.Logger.Level.WARNING, "message " + row.id() + " FAILED after " + attempts + " attempts: " + error);
            if (message != null) {
                notifyListener(() -> listener.onFailed(message, attempts, failure.error()));
            }
        } else {
            counters.retried.increment();
            LOG.log(System.Logger.Level.WARNING, "message " + row.id() + ": attempt " + row.attempts() + " of "
                    + config.maxAttempts() + " failed, sent again in " + wait.toMillis() + " ms: " + error);
            if (message != null) {
                notifyListener(() -> listener.onRetry(message, row.attempts(), failure.error(), wait));
            }
        }
    }

    private List<ClaimedRow> claim(String owner) {
        if (sql.claimsInOneStatement()) {
            return claimReturning(owner);
        }
        return Transactions.run(dataSource, "outbox claim", connection -> {
            List<String> due = new ArrayList<>();
            try (PreparedStatement select = connection.prepareStatement(sql.selectDue())) {
                select.setInt(1, config.batchSize());
                try (ResultSet result = select.executeQuery()) {
                    while (result.next()) {
                        due.add(result.getString(1));
                    }
                }
            }
            if (due.isEmpty()) {
                return List.of();
            }
            try (PreparedStatement update = connection.prepareStatement(sql.claim(due.size()))) {
                update.setString(1, owner);
                update.setLong(2, config.lease().toMillis());
                for (int i = 0; i < due.size(); i++) {
                    update.setString(i + 3, due.get(i));
                }
                if (update.executeUpdate() == 0) {
                    return List.of();
                }
            }
            List<ClaimedRow> rows = new ArrayList<>(due.size());
            try (PreparedStatement select = connection.prepareStatement(sql.selectClaimed(due.size()))) {
                select.setString(1, owner);
                for (int i = 0; i < due.size(); i++) {
                    select.setString(i + 2, due.get(i));
                }
                try (ResultSet result = select.executeQuery()) {
                    while (result.next()) {
                        rows.add(ClaimedRow.read(result));
                    }
                }
            }
            return rows;
        });
    }

    /** The claim in one statement (PostgreSQL), its rows sorted oldest first as {@link OutboxSql#selectClaimed} sorts them. */
    private List<ClaimedRow> claimReturning(String owner) {
        // one statement, so one round trip with autocommit on: a transaction of its own, lowered to
        // READ COMMITTED only when a stricter level of the pool made it fail on a row another relay claimed
        return Jdbc.run(dataSource, Jdbc.Transactions.OWN_AT_READ_COMMITTED, "outbox claim", session -> session.step(connection -> {
            List<ClaimedRow> rows = new ArrayList<>();
            List<Long> created = new ArrayList<>();
            try (PreparedStatement claim = connection.prepareStatement(sql.claimReturning())) {
                claim.setString(1, owner);
                claim.setLong(2, config.lease().toMillis());
                claim.setInt(3, config.batchSize());
                try (ResultSet result = claim.executeQuery()) {
                    while (result.next()) {
                        rows.add(ClaimedRow.read(result));
                        created.add(result.getLong(7));
                    }
                }
            }
            if (rows.size() < 2) {
                return rows;
            }
            Integer[] order = new Integer[rows.size()];
            for (int i = 0; i < order.length; i++) {
                order[i] = i;
            }
            java.util.Arrays.sort(order, java.util.Comparator.<Integer>comparingLong(created::get)
                    .thenComparing(i -> rows.get(i).id()));
            List<ClaimedRow> sorted = new ArrayList<>(rows.size());
            for (int i : order) {
                sorted.add(rows.get(i));
            }
            return sorted;
        }));
    }

    /** Runs a listener call; a listener that throws is logged and the relay goes on. */
    static void notifyListener(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "an OutboxListener failed; the relay goes on", e);
        }
    }

    /** A claimed row: its message (null when the row cannot be read back) and its attempt number. */
    private record ClaimedRow(String id, @Nullable OutboxMessage message, int attempts, @Nullable String unreadable) {

        static ClaimedRow read(ResultSet row) throws SQLException {
            String id = row.getString(1);
            int attempts = row.getInt(6);
            try {
                OutboxMessage message = new OutboxMessage(id, row.getString(2), row.getString(3), row.getString(4),
                        HeadersJson.read(row.getString(5)));
                return new ClaimedRow(id, message, attempts, null);
            } catch (RuntimeException e) {
                return new ClaimedRow(id, null, attempts, ShortError.of(e));
            }
        }

        // identity, not the record's value equality: rows are keys of a map
        @Override
        public boolean equals(Object other) {
            return this == other;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(this);
        }
    }

    private record Failure(ClaimedRow row, Throwable error) {
    }

    /**
     * A claimed batch handed to the transport: its fencing token, how many rows were claimed, the
     * rows failed before publishing, the futures of the others, and the {@code System.nanoTime()}
     * after which a missing confirm counts as a failed attempt.
     */
    record Batch(String owner, int size, List<Failure> exhausted, Map<ClaimedRow, CompletableFuture<Void>> publishing,
            long deadline) {
    }
}
