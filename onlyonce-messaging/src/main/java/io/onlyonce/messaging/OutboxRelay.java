package io.onlyonce.messaging;

import io.onlyonce.StoreUnavailableException;
import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.messaging.internal.OutboxSql;
import io.onlyonce.messaging.internal.ShortError;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 *       {@code lease_until_ms} now + {@link RelayConfig#lease()}, one more attempt; commit. On
 *       PostgreSQL this is one {@code UPDATE ... RETURNING} statement.
 *   <li><b>Publish</b> the claimed messages together ({@link MessageTransport#publishAll}) outside any
 *       transaction or row lock, and wait for the confirms, at most {@link RelayConfig#publishTimeout()}
 *       (shorter than the lease).
 *   <li><b>Mark</b>, each statement a transaction of its own and guarded by the fencing token (a
 *       claim that lost its row to another relay changes nothing): confirmed rows SUCCESS with
 *       {@code sent_at_ms} (or deleted, with {@link RelayConfig#deleteSent()}), a batch in one statement; failed ones (nack, unroutable, no confirm in time) back to PREPARED, due
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
 * {@link #wakeUp()} is called (after each business commit that recorded a message). The polls are
 * pipelined: while the broker confirms a full batch, the thread claims and publishes the next one,
 * up to {@link RelayConfig#pipelineDepth()} batches in flight, and marks each batch once its
 * confirms are in; the database's round trips and the broker's overlap instead of adding up.
 * {@link #stop()} lets the current poll finish. {@link #pollOnce()} may also be called directly (by
 * tests, or a scheduler of your own), from any thread.
 *
 * <p>Give the relay a plain connection pool, not a transaction-aware proxy: it commits its own work.
 */
public final class OutboxRelay implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(OutboxRelay.class.getName());
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final RelayConfig config;
    private final OutboxListener listener;
    private final RelayCounters counters = new RelayCounters();
    private final RelayPoll poll;
    private final OutboxQueries queries;
    private final Semaphore wake = new Semaphore(0);
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
        Objects.requireNonNull(dataSource, "dataSource");
        this.config = Objects.requireNonNull(config, "config");
        this.listener = Objects.requireNonNull(listener, "listener");
        OutboxSql sql = new OutboxSql(Objects.requireNonNull(dialect, "dialect"));
        this.poll = new RelayPoll(dataSource, Objects.requireNonNull(transport, "transport"), config, listener, sql, counters);
        this.queries = new OutboxQueries(dataSource, sql);
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

    /**
     * Polls while running, keeping up to {@link RelayConfig#pipelineDepth()} batches in flight: it
     * claims and publishes the next batch while the broker confirms the earlier ones, then marks the
     * oldest once its confirms are in (or its publish timeout passed). Sleeps only when nothing is in
     * flight and the last claim found less than a full batch.
     */
    private void loop() {
        ArrayDeque<RelayPoll.Batch> inFlight = new ArrayDeque<>();
        boolean claim = true;
        try {
            while (running) {
                if (claim && inFlight.size() < config.pipelineDepth()) {
                    RelayPoll.Batch batch = null;
                    try {
                        batch = poll.start();
                    } catch (RuntimeException e) {
                        counters.pollsFailed.increment();
                        LOG.log(System.Logger.Level.WARNING, "outbox poll failed; trying again in " + config.pollInterval()
                                + ": " + ShortError.of(e));
                        RelayPoll.notifyListener(() -> listener.onPollFailed(e));
                    } finally {
                        counters.polls.increment();
                    }
                    if (batch != null) {
                        inFlight.add(batch);
                    }
                    claim = batch != null && batch.size() >= config.batchSize();
                    continue;
                }
                if (!inFlight.isEmpty()) {
                    finish(inFlight.remove());
                    claim = claim || wake.tryAcquire();
                    continue;
                }
                try {
                    wake.tryAcquire(config.pollInterval().toMillis(), TimeUnit.MILLISECONDS);
                    wake.drainPermits();
                } catch (InterruptedException e) {
                    return;
                }
                claim = true;
            }
        } catch (Error e) {
            running = false;
            LOG.log(System.Logger.Level.ERROR, "the outbox relay stops on an error", e);
            throw e;
        } finally {
            // what was published is marked before the thread ends: each batch waits at most its publish timeout
            while (!inFlight.isEmpty()) {
                finish(inFlight.remove());
            }
        }
    }

    private void finish(RelayPoll.Batch batch) {
        try {
            poll.finish(batch);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "marking a batch of " + batch.size() + " messages failed; they stay"
                    + " SENDING and are sent again after their lease: " + ShortError.of(e));
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
            return poll.run();
        } finally {
            counters.polls.increment();
        }
    }

    /**
     * Puts a FAILED message back to PREPARED, due now, with its attempts reset to 0, and wakes the
     * relay: after the operator fixed what made it fail.
     *
     * @return {@code false} when no FAILED message has this id (nothing changed)
     * @throws StoreUnavailableException when the database cannot be reached
     */
    public boolean resubmit(String messageId) {
        boolean resubmitted = queries.resubmit(messageId);
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
        return queries.purgeSent(olderThan, batchSize);
    }

    /**
     * The number of rows in each state (every state present, 0 when none). Counts the whole table:
     * for dashboards and health checks, not for every request.
     *
     * @throws StoreUnavailableException when the database cannot be reached
     */
    public Map<MessageStatus, Long> countByStatus() {
        return queries.countByStatus();
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
        return queries.backlog(timeout);
    }

    /**
     * The FAILED messages, oldest first, at most {@code limit}: what an operator looks at before a
     * {@link #resubmit}. Scans the table.
     *
     * @throws StoreUnavailableException when the database cannot be reached
     */
    public List<OutboxEntry> failedMessages(int limit) {
        return queries.failedMessages(limit);
    }

    /**
     * The row of {@code messageId}, if the outbox holds it.
     *
     * @throws StoreUnavailableException when the database cannot be reached
     */
    public Optional<OutboxEntry> find(String messageId) {
        return queries.find(messageId);
    }

    /** The counts since the relay was created. */
    public RelayStats stats() {
        return counters.snapshot();
    }

    @Override
    public String toString() {
        return "OutboxRelay[running=" + running + ", " + config + "]";
    }
}
