package io.onlyonce.messaging;

import io.onlyonce.StoreUnavailableException;
import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.jdbc.sql.Jdbc;
import io.onlyonce.jdbc.sql.ServerClock;
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
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Publishes the messages of the outbox ({@value MessagingSchema#MESSAGE_LOG_TABLE}) through a
 * {@link MessageTransport}, and marks each SUCCESS only once the broker confirmed it.
 *
 * <h2>One poll ({@link #pollOnce()})</h2>
 * <ol>
 *   <li><b>Claim</b>, in one short transaction of its own: select up to
 *       {@link RelayConfig#batchSize()} due rows (PREPARED whose time has come, or SENDING whose lease
 *       has passed: the <em>sweep</em> of a relay that died mid-send) oldest due first,
 *       {@code FOR UPDATE SKIP LOCKED}, so that concurrent relays take different rows; set them
 *       SENDING with a fresh fencing token as {@code sending_owner}, {@code sending_since_ms} now and
 *       {@code next_attempt_at_ms} now + {@link RelayConfig#lease()}, one more attempt; commit. On
 *       PostgreSQL this is one {@code UPDATE ... RETURNING} statement.
 *   <li><b>Publish</b> the claimed messages together ({@link MessageTransport#publishAll}) outside any
 *       transaction or row lock, and wait for the confirms, at most {@link RelayConfig#publishTimeout()}
 *       (shorter than the lease).
 *   <li><b>Mark</b>, each statement a transaction of its own and guarded by the fencing token (a
 *       claim that lost its row to another relay changes nothing): confirmed rows SUCCESS with
 *       {@code sent_at_ms}; failed ones (nack, unroutable, no confirm in time) back to PREPARED, due
 *       after an exponential backoff with jitter and a cap, with {@code last_error}; or FAILED after
 *       {@link RelayConfig#maxAttempts()} attempts ({@link OutboxListener#onFailed}, the alert hook).
 * </ol>
 * Every time is the database server's, computed in SQL: all relays on one table share one clock.
 * The relay's statements run at READ COMMITTED on connections of its own, with autocommit on or off,
 * and a serialization failure or deadlock is tried again; so any pool configuration works.
 *
 * <h2>Guarantees</h2>
 * A message is published at least once after its business transaction committed, and never before.
 * Any number of relays (threads or instances) may run on one table; in the normal path no row is
 * published twice. A row is published again (and the consumer's inbox drops the duplicate) when a
 * relay died or lost the database between publish and mark (the sweep re-sends it after the lease),
 * or when a confirm arrived later than the publish timeout.
 *
 * <h2>Running</h2>
 * {@link #start()} runs the polls on a thread of the relay's own: a poll right away, again at once
 * while polls find full batches, otherwise after {@link RelayConfig#pollInterval()} or as soon as
 * {@link #wakeUp()} is called (after each business commit that recorded a message).
 * {@link #stop()} lets the current poll finish. {@link #pollOnce()} may also be called directly (by
 * tests, or a scheduler of your own), from any thread.
 *
 * <p>Give the relay a plain connection pool, not a transaction-aware proxy: it commits its own work.
 */
public final class OutboxRelay implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(OutboxRelay.class.getName());
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final DataSource dataSource;
    private final MessageTransport transport;
    private final RelayConfig config;
    private final OutboxListener listener;
    private final OutboxSql sql;
    private final Backoff backoff;
    private final Semaphore wake = new Semaphore(0);
    private final LongAdder polls = new LongAdder();
    private final LongAdder claimed = new LongAdder();
    private final LongAdder sent = new LongAdder();
    private final LongAdder retried = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder pollsFailed = new LongAdder();
    private @Nullable ExecutorService worker;
    private volatile boolean running;

    /** A relay without a listener. */
    public OutboxRelay(DataSource dataSource, JdbcDialect dialect, MessageTransport transport, RelayConfig config) {
        this(dataSource, dialect, transport, config, OutboxListener.NONE);
    }

    /**
     * A relay; nothing runs until {@link #start()} or {@link #pollOnce()}.
     *
     * @param dataSource a pool on the database that holds the outbox (not a transaction-aware proxy)
     * @param listener told of every sent, retried and failed message
     */
    public OutboxRelay(DataSource dataSource, JdbcDialect dialect, MessageTransport transport, RelayConfig config,
            OutboxListener listener) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.transport = Objects.requireNonNull(transport, "transport");
        this.config = Objects.requireNonNull(config, "config");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.sql = new OutboxSql(Objects.requireNonNull(dialect, "dialect"));
        this.backoff = new Backoff(config.initialBackoff(), config.backoffMultiplier(), config.backoffJitter(),
                config.maxBackoff());
    }

    /** The configuration. */
    public RelayConfig config() {
        return config;
    }

    /** Starts polling on a thread of the relay's own; does nothing when it is running. */
    public synchronized void start() {
        if (worker != null) {
            return;
        }
        running = true;
        ExecutorService executor = Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, "onlyonce-outbox-relay-" + THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        executor.execute(this::loop);
        worker = executor;
    }

    /**
     * Stops polling: the current poll finishes (waiting for its confirms at most the publish
     * timeout), then the thread ends. Rows a poll could not mark stay SENDING and are swept after
     * their lease, by this relay once restarted or by another. Does nothing when not running.
     */
    public synchronized void stop() {
        ExecutorService executor = worker;
        if (executor == null) {
            return;
        }
        running = false;
        wake.release();
        executor.shutdown();
        try {
            if (!executor.awaitTermination(config.publishTimeout().toMillis() + 10_000, TimeUnit.MILLISECONDS)) {
                executor.shutdownNow();
                executor.awaitTermination(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
        worker = null;
    }

    /** Same as {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    /** Whether the relay's thread is polling. */
    public boolean isRunning() {
        return running;
    }

    /**
     * Makes the running relay poll now instead of at the end of its poll interval: call it after a
     * transaction that recorded messages committed. Cheap, never blocks, safe from any thread.
     */
    public void wakeUp() {
        if (wake.availablePermits() == 0) {
            wake.release();
        }
    }

    private void loop() {
        while (running) {
            int count;
            try {
                count = pollOnce();
            } catch (Error e) {
                running = false;
                LOG.log(System.Logger.Level.ERROR, "the outbox relay stops on an error", e);
                throw e;
            } catch (RuntimeException e) {
                pollsFailed.increment();
                LOG.log(System.Logger.Level.WARNING, "outbox poll failed; trying again in " + config.pollInterval()
                        + ": " + ShortError.of(e));
                notifyListener(() -> listener.onPollFailed(e));
                count = 0;
            }
            if (count >= config.batchSize() || !running) {
                continue;
            }
            try {
                if (wake.tryAcquire(config.pollInterval().toMillis(), TimeUnit.MILLISECONDS)) {
                    wake.drainPermits();
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * Claims one batch of due rows, publishes them, waits for their confirms and marks them, as the
     * class comment describes; returns when all are marked.
     *
     * @return how many rows were claimed (0 when nothing was due)
     * @throws StoreUnavailableException when the claim fails (nothing was published); a failure to
     *     mark is logged, its rows stay SENDING and are swept after their lease
     */
    public int pollOnce() {
        try {
            return poll();
        } finally {
            polls.increment();
        }
    }

    private int poll() {
        String owner = OwnerToken.random().value();
        List<ClaimedRow> rows = claim(owner);
        if (rows.isEmpty()) {
            return 0;
        }
        claimed.add(rows.size());
        List<Failure> failures = new ArrayList<>();
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
        Map<ClaimedRow, CompletableFuture<Void>> publishing = publish(publishable);
        List<ClaimedRow> confirmed = new ArrayList<>();
        boolean interrupted = await(publishing, confirmed, failures);
        try {
            mark(owner, confirmed, failures, exhausted);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return rows.size();
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
    private boolean await(Map<ClaimedRow, CompletableFuture<Void>> publishing, List<ClaimedRow> confirmed,
            List<Failure> failures) {
        long deadline = System.nanoTime() + config.publishTimeout().toNanos();
        boolean interrupted = false;
        for (Map.Entry<ClaimedRow, CompletableFuture<Void>> entry : publishing.entrySet()) {
            CompletableFuture<Void> future = entry.getValue();
            try {
                if (interrupted) {
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
            sent.increment();
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
        try (PreparedStatement update = connection.prepareStatement(sql.markSent(rows.size()))) {
            update.setString(1, owner);
            for (int i = 0; i < rows.size(); i++) {
                update.setString(i + 2, rows.get(i).id());
            }
            return update.executeUpdate();
        }
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
            failed.increment();
            int attempts = row.attempts() > config.maxAttempts() ? row.attempts() - 1 : row.attempts();
            LOG.log(System.Logger.Level.WARNING, "message " + row.id() + " FAILED after " + attempts + " attempts: " + error);
            if (message != null) {
                notifyListener(() -> listener.onFailed(message, attempts, failure.error()));
            }
        } else {
            retried.increment();
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
        return Transactions.run(dataSource, "outbox claim", connection -> {
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
        });
    }

    /**
     * Puts a FAILED message back to PREPARED, due now, with its attempts reset to 0, and wakes the
     * relay: after the operator fixed what made it fail.
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
        if (resubmitted) {
            wakeUp();
        }
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
     * {@link #resubmit}. Scans the table.
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

    /** The counts since the relay was created. */
    public RelayStats stats() {
        return new RelayStats(polls.sum(), claimed.sum(), sent.sum(), retried.sum(), failed.sum(), pollsFailed.sum());
    }

    private static OutboxEntry entry(ResultSet row) throws SQLException {
        return new OutboxEntry(row.getString(1), row.getString(2), row.getString(3), MessageStatus.valueOf(row.getString(4)),
                row.getInt(5), row.getString(6), row.getLong(7));
    }

    private static void notifyListener(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "an OutboxListener failed; the relay goes on", e);
        }
    }

    @Override
    public String toString() {
        return "OutboxRelay[running=" + running + ", " + config + "]";
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
}
