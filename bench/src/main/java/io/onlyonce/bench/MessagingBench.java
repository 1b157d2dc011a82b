package io.onlyonce.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.messaging.JdbcOutbox;
import io.onlyonce.messaging.MessageHandler;
import io.onlyonce.messaging.MessagingSchema;
import io.onlyonce.messaging.OutboxListener;
import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.messaging.OutboxRelay;
import io.onlyonce.messaging.PostgresWakeUp;
import io.onlyonce.messaging.RelayConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The message layer on PostgreSQL against the same work done without it, on each broker
 * ({@code -Dbench.broker=rabbit|kafka|both}), measured in the same run, rounds interleaved (the
 * order alternates from round to round), medians printed side by side.
 *
 * <p>Side {@code relay}, N messages per phase:
 * <ul>
 *   <li>raw: the N messages published straight to the broker from this JVM the best raw way with the
 *       transport's guarantees ({@link BrokerSide#rawPublish}, in batches of the relay's batch size),
 *       until all are confirmed;
 *   <li>relay: the same N messages committed to the outbox beforehand (not measured), then an
 *       {@link OutboxRelay} on the broker's transport is started; the clock stops when it marked the
 *       N-th row SUCCESS on its confirm.
 * </ul>
 * Side {@code consumer}, the same delivery stream each: N distinct messages plus 10 % of them
 * published a second time about 50 messages later (at-least-once delivery), preloaded, then drained
 * by {@code consumers} threads:
 * <ul>
 *   <li>plain: one effect row inserted per delivery with autocommit, then the delivery is
 *       acknowledged (at-least-once, not idempotent: every duplicate takes effect again);
 *   <li>idempotent: the broker's idempotent consumer on an {@code IdempotentConsumer} (JDBC inbox)
 *       whose handler inserts the same row in the inbox transaction. The bench fails unless the
 *       effect count equals the distinct count.
 * </ul>
 * Side {@code business} (not run by default): N business transactions on {@code clients} threads,
 * each inserting one order row and recording one outbox message before its commit and waking the
 * running relay after it (or, with {@code notify}, sending {@code NOTIFY} before it to relays woken
 * by a {@link PostgresWakeUp}), until the relay marked all N SUCCESS; against the same business
 * transactions without the outbox. Figures: the end-to-end rate over the business-only rate, and
 * the business commit rate with the outbox over the one without.
 *
 * <p>Settings as system properties ({@code -Dbench.n=4000}) or arguments ({@code --n=4000}): {@code broker}
 * ({@code rabbit}), {@code n} (4000), {@code rounds} (5), {@code warmup} rounds (1), relay {@code batch}
 * ({@value RelayConfig#DEFAULT_BATCH_SIZE}), {@code relays} (1: how many {@link OutboxRelay}s run on the
 * table at once), producer {@code clients} (4), {@code consumers} (4),
 * {@code prefetch} (50), {@code duplicates} (0.1), {@code sides} ({@code relay,consumer}), {@code depth}
 * (the relay's pipeline depth, {@value RelayConfig#DEFAULT_PIPELINE_DEPTH}), {@code deleteSent} (false: the
 * relay marks sent rows SUCCESS; true: it deletes them), {@code notify} (false: side {@code business}
 * wakes the relays in this JVM after each commit; true: LISTEN/NOTIFY), {@code fillfactor} (the schema's: the outbox
 * table's, to compare layouts),
 * {@code pgWaits} (false: sample {@code pg_stat_activity} every 10 ms and read {@code pg_stat_wal}
 * around each phase, and print where the backends waited).
 *
 * <p>Servers: PostgreSQL at {@code ONLYONCE_PG_URL} (jdbc:postgresql://127.0.0.1:5432/, user
 * postgres; database {@value #DATABASE} is created and dropped); RabbitMQ and Kafka as {@link RabbitSide}
 * and {@link KafkaSide} say.
 *
 * <pre>bench/run.sh MessagingBench [-Dbench.broker=rabbit] [-Dbench.n=4000] [-Dbench.rounds=5]</pre>
 */
public final class MessagingBench {

    static final String DATABASE = "onlyonce_bench_msg";
    static final Duration PHASE_TIMEOUT = Duration.ofMinutes(2);
    static final String INSERT_EFFECT = "INSERT INTO bench_effects (message_id, payload) VALUES (?, ?)";
    /** The idempotent consumers' handler: the plain consumers' insert, in the inbox transaction. */
    static final MessageHandler EFFECT = (message, connection) -> {
        try (PreparedStatement insert = connection.prepareStatement(INSERT_EFFECT)) {
            insert.setString(1, message.id());
            insert.setString(2, message.payload());
            insert.executeUpdate();
        }
    };
    private static final String INSERT_ORDER = "INSERT INTO bench_orders (id, item, quantity) VALUES (?, ?, ?)";

    private final int n;
    private final int batch;
    private final int relays;
    private final int depth;
    private final boolean deleteSent;
    /** Whether business transactions NOTIFY and the relays LISTEN ({@link PostgresWakeUp}), instead of an in-JVM wake-up. */
    private final boolean notify;
    /** The relays of the running phase, woken after each business commit (without {@link #notify}). */
    private volatile List<OutboxRelay> awake = List.of();
    private final int clients;
    /** Per broker: WAL bytes of the relay's claims and marks, of the preload's inserts, updates and HOT updates, messages. */
    private final Map<String, long[]> relayWal = new LinkedHashMap<>();
    /** Per broker: the business commit rate of each end-to-end phase (the warm-up's first). */
    private final Map<String, List<Double>> commitRates = new LinkedHashMap<>();
    private final double duplicateShare;
    private final HikariDataSource dataSource;
    private final BrokerSide.Settings settings;
    private final ExecutorService producers;
    private final JdbcOutbox outbox = new JdbcOutbox(JdbcDialect.POSTGRESQL);
    private final PgWaits waits;
    private long sequence;

    private MessagingBench(int n, int batch, int relays, int depth, boolean deleteSent, boolean notify, int clients, int consumers,
            int prefetch, double duplicateShare, HikariDataSource dataSource, PgWaits waits) {
        this.n = n;
        this.batch = batch;
        this.relays = relays;
        this.depth = depth;
        this.deleteSent = deleteSent;
        this.notify = notify;
        this.clients = clients;
        this.duplicateShare = duplicateShare;
        this.dataSource = dataSource;
        this.settings = new BrokerSide.Settings(dataSource, consumers, prefetch);
        this.waits = waits;
        this.producers = Executors.newFixedThreadPool(clients, task -> {
            Thread thread = new Thread(task, "bench-producer");
            thread.setDaemon(true);
            return thread;
        });
    }

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Throwable e) {
            System.out.println();
            System.out.println("FAILED: " + e);
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0); // the brokers' clients may keep threads alive
    }

    private static void run(String[] args) throws Exception {
        Map<String, String> options = Harness.args(args);
        String broker = option(options, "broker", "rabbit");
        int n = Integer.parseInt(option(options, "n", "4000"));
        int rounds = Integer.parseInt(option(options, "rounds", "5"));
        int warmup = Integer.parseInt(option(options, "warmup", "1"));
        int batch = Integer.parseInt(option(options, "batch", String.valueOf(RelayConfig.DEFAULT_BATCH_SIZE)));
        int relays = Integer.parseInt(option(options, "relays", "1"));
        int depth = Integer.parseInt(option(options, "depth", String.valueOf(RelayConfig.DEFAULT_PIPELINE_DEPTH)));
        boolean deleteSent = Boolean.parseBoolean(option(options, "deleteSent", "false"));
        boolean notify = Boolean.parseBoolean(option(options, "notify", "false"));
        int clients = Integer.parseInt(option(options, "clients", "4"));
        int consumers = Integer.parseInt(option(options, "consumers", "4"));
        int prefetch = Integer.parseInt(option(options, "prefetch", "50"));
        double duplicates = Double.parseDouble(option(options, "duplicates", "0.1"));
        List<String> sides = List.of(option(options, "sides", "relay,consumer").split(","));
        boolean pgWaits = Boolean.parseBoolean(option(options, "pgWaits", "false"));
        String pgServer = Harness.env("ONLYONCE_PG_URL", "jdbc:postgresql://127.0.0.1:5432/");
        List<String> brokers = switch (broker) {
            case "rabbit", "kafka" -> List.of(broker);
            case "both" -> List.of("rabbit", "kafka");
            default -> throw new IllegalArgumentException("bench.broker is rabbit, kafka or both, was " + broker);
        };
        if (n < 1 || rounds < 1 || warmup < 0 || relays < 1 || batch < 1 || batch > RelayConfig.MAX_BATCH_SIZE || clients < 1
                || consumers < 1 || prefetch < 1 || duplicates < 0 || duplicates > 1) {
            throw new IllegalArgumentException("n, rounds, relays, batch (up to " + RelayConfig.MAX_BATCH_SIZE + "), clients,"
                    + " consumers and prefetch are at least 1, warmup at least 0, duplicates in [0, 1]");
        }
        quietLogging();

        System.out.printf("OnlyOnce message layer on %s: %,d messages per phase, %d warm-up + %d measured rounds,"
                        + " relay batch %d x %d relays (pipeline depth %d%s), %d consumers (prefetch %d), %.0f %% duplicates, sides %s, %d cores, Java %s%n",
                String.join(" and ", brokers), n, warmup, rounds, batch, relays, depth, (deleteSent ? ", sent rows deleted" : "") + (notify ? ", business commits NOTIFY, relays LISTEN" : ""), consumers, prefetch, duplicates * 100,
                String.join(",", sides), Runtime.getRuntime().availableProcessors(), Runtime.version());

        createDatabase(pgServer);
        List<BrokerSide> started = new ArrayList<>();
        HikariDataSource dataSource = null;
        PgWaits waits = null;
        try {
            dataSource = pool(pgServer + DATABASE, clients + consumers + 2);
            prepareSchema(dataSource);
            String fillfactor = option(options, "fillfactor", "");
            if (!fillfactor.isEmpty()) {
                try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
                    s.execute("ALTER TABLE onlyonce_message_log SET (fillfactor = " + Integer.parseInt(fillfactor) + ")");
                }
                System.out.println("outbox table fillfactor " + fillfactor);
            }
            for (String name : brokers) {
                started.add(start(name));
            }
            waits = pgWaits ? PgWaits.start(pgServer + DATABASE) : null;
            MessagingBench bench = new MessagingBench(n, batch, relays, depth, deleteSent, notify, clients, consumers, prefetch,
                    duplicates, dataSource, waits);
            bench.measure(started, sides, warmup, rounds);
        } finally {
            if (waits != null) {
                waits.close();
            }
            for (BrokerSide side : started) {
                try {
                    side.close();
                } catch (Exception e) {
                    System.out.println("closing " + side.name() + ": " + e);
                }
            }
            if (dataSource != null) {
                dataSource.close();
            }
            dropDatabase(pgServer);
        }
    }

    private static BrokerSide start(String name) throws Exception {
        return name.equals("rabbit") ? RabbitSide.start() : KafkaSide.start();
    }

    // ---------------------------------------------------------------- rounds and report

    /** A phase's medians and notes, per broker. */
    private static final class Phases {
        final Map<String, List<Double>> rates = new LinkedHashMap<>();
        final Map<String, String> notes = new LinkedHashMap<>();

        void record(String key, Result result) {
            rates.computeIfAbsent(key, k -> new ArrayList<>()).add(result.rate());
            notes.put(key, result.note());
        }
    }

    private void measure(List<BrokerSide> brokers, List<String> sides, int warmup, int rounds) throws Exception {
        Phases phases = new Phases();
        for (int round = -warmup; round < rounds; round++) {
            boolean measured = round >= 0;
            long roundStart = System.nanoTime();
            boolean reverse = Math.floorMod(round, 2) == 1;
            StringBuilder line = new StringBuilder(measured ? "round " + (round + 1) + ":" : "warm-up:");
            for (BrokerSide broker : brokers) {
                line.append("  ").append(broker.name());
                List<String> order = new ArrayList<>();
                if (sides.contains("relay")) {
                    order.addAll(reverse ? List.of("floor", "relay", "raw") : List.of("raw", "relay", "floor"));
                }
                if (sides.contains("consumer")) {
                    order.addAll(reverse ? List.of("idempotent", "plain") : List.of("plain", "idempotent"));
                }
                if (sides.contains("business")) {
                    order.addAll(reverse ? List.of("business", "e2e") : List.of("e2e", "business"));
                }
                for (String phase : order) {
                    Result result = switch (phase) {
                        case "raw" -> raw(broker);
                        case "relay" -> relay(broker);
                        case "floor" -> floor(broker);
                        case "plain" -> consume(broker, false);
                        case "idempotent" -> consume(broker, true);
                        case "e2e" -> outboxAndRelay(broker);
                        default -> businessOnly(broker);
                    };
                    if (measured) {
                        phases.record(broker.name() + " " + phase, result);
                    }
                    line.append(String.format(" %s %,.0f/s", phase, result.rate()));
                }
            }
            System.out.println(line.append(String.format("   (%.0f s)", (System.nanoTime() - roundStart) / 1e9)));
        }
        report(brokers, sides, phases);
        if (waits != null) {
            waits.report();
        }
        figures(brokers, sides, phases);
    }

    /** The figures, last, one per line: {@code figure NAME VALUE}. */
    private void figures(List<BrokerSide> brokers, List<String> sides, Phases phases) {
        System.out.println();
        for (BrokerSide broker : brokers) {
            String b = broker.name();
            if (sides.contains("relay")) {
                figure("raw_" + b + "_msgs_per_s", median(phases.rates.get(b + " raw")), "%.0f");
                figure("relay_" + b + "_msgs_per_s", median(phases.rates.get(b + " relay")), "%.0f");
                figure("pg_floor_" + b + "_rows_per_s", median(phases.rates.get(b + " floor")), "%.0f");
                figure("relay_over_raw_" + b, medianRatio(phases, b + " relay", b + " raw"), "%.2f");
                figure("relay_over_pg_floor_" + b, medianRatio(phases, b + " relay", b + " floor"), "%.2f");
                long[] w = relayWal.get(b);
                figure("wal_bytes_per_message_relay_" + b, w[0] / (double) w[4], "%.0f");
                figure("wal_bytes_per_message_insert_" + b, w[1] / (double) w[4], "%.0f");
                figure("hot_update_share_" + b, w[2] == 0 ? 0 : w[3] / (double) w[2], "%.2f");
            }
            if (sides.contains("consumer")) {
                figure("idempotent_over_plain_consumer_" + b, medianRatio(phases, b + " idempotent", b + " plain"), "%.2f");
            }
            if (sides.contains("business")) {
                figure("business_with_outbox_over_without_" + b, medianRatio(phases, b + " e2e", b + " business"), "%.2f");
                List<Double> commits = commitRates.get(b);
                List<Double> measuredCommits = commits.subList(commits.size() - phases.rates.get(b + " business").size(), commits.size());
                figure("business_commits_with_outbox_over_without_" + b,
                        median(measuredCommits) / median(phases.rates.get(b + " business")), "%.2f");
            }
        }
    }

    private static double medianRatio(Phases phases, String top, String bottom) {
        List<Double> a = phases.rates.get(top);
        List<Double> b = phases.rates.get(bottom);
        List<Double> each = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            each.add(a.get(i) / b.get(i));
        }
        return median(each);
    }

    private static void figure(String name, double value, String format) {
        System.out.println("figure " + name + " " + String.format(java.util.Locale.ROOT, format, value));
    }

    private void report(List<BrokerSide> brokers, List<String> sides, Phases phases) {
        System.out.println();
        StringBuilder header = new StringBuilder(String.format("%-52s", "medians; ratio: median of per-round ratios [each]"));
        for (BrokerSide broker : brokers) {
            header.append(String.format(" %-34s", broker.name()));
        }
        System.out.println(header.toString().stripTrailing());
        if (sides.contains("relay")) {
            row("raw confirmed publish, msgs/s", "raw", brokers, phases);
            row("outbox relay until all confirmed, msgs/s", "relay", brokers, phases);
            ratioRow("  relay / raw (target >= 0.8)", "relay", "raw", brokers, phases);
            row("PostgreSQL floor: read + batch mark, rows/s", "floor", brokers, phases);
            ratioRow("  relay / PostgreSQL floor (target >= 0.8)", "relay", "floor", brokers, phases);
        }
        if (sides.contains("consumer")) {
            row("plain consumer, deliveries/s", "plain", brokers, phases);
            row("idempotent consumer + inbox, deliveries/s", "idempotent", brokers, phases);
            ratioRow("  idempotent / plain (target >= 0.7)", "idempotent", "plain", brokers, phases);
        }
        if (sides.contains("business")) {
            row("business tx + outbox, relay until confirmed, msgs/s", "e2e", brokers, phases);
            row("business tx alone (no outbox), tx/s", "business", brokers, phases);
            ratioRow("  with outbox / without", "e2e", "business", brokers, phases);
        }
        if (sides.contains("relay")) {
            System.out.println();
            System.out.println("PostgreSQL per relayed message (all relay rounds; cluster-wide WAL, so run it alone):");
            relayWal.forEach((name, w) -> System.out.printf("  %s: %,.0f WAL bytes by the relay's claims and marks,"
                            + " %,.0f by the inserts; %.2f updates, %.0f %% of them HOT%n", name, w[0] / (double) w[4],
                    w[1] / (double) w[4], w[2] / (double) w[4], w[2] == 0 ? 0 : 100.0 * w[3] / w[2]));
        }
        System.out.println();
        for (BrokerSide broker : brokers) {
            System.out.println(broker.name() + ":");
            System.out.println("  raw: " + broker.rawDescription());
            System.out.println("  plain consumer: " + broker.plainDescription());
            System.out.println("  idempotent consumer: " + broker.idempotentDescription());
            phases.notes.forEach((key, note) -> {
                if (key.startsWith(broker.name() + " ") && !note.isEmpty()) {
                    System.out.println("  " + key.substring(broker.name().length() + 1) + ", last round: " + note);
                }
            });
        }
    }

    private static void row(String label, String phase, List<BrokerSide> brokers, Phases phases) {
        StringBuilder line = new StringBuilder(String.format("%-52s", label));
        for (BrokerSide broker : brokers) {
            List<Double> rates = phases.rates.get(broker.name() + " " + phase);
            line.append(String.format(" %-34s", rates == null ? "-" : fmt(median(rates))));
        }
        System.out.println(line.toString().stripTrailing());
    }

    private static void ratioRow(String label, String top, String bottom, List<BrokerSide> brokers, Phases phases) {
        StringBuilder line = new StringBuilder(String.format("%-52s", label));
        for (BrokerSide broker : brokers) {
            List<Double> a = phases.rates.get(broker.name() + " " + top);
            List<Double> b = phases.rates.get(broker.name() + " " + bottom);
            line.append(String.format(" %-34s", a == null || b == null ? "-" : ratios(a, b)));
        }
        System.out.println(line.toString().stripTrailing());
    }

    private static String ratios(List<Double> a, List<Double> b) {
        List<Double> each = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            each.add(a.get(i) / b.get(i));
        }
        StringBuilder text = new StringBuilder(String.format("%.2f [", median(each)));
        for (int i = 0; i < each.size(); i++) {
            text.append(i == 0 ? "" : " ").append(String.format("%.2f", each.get(i)));
        }
        return text.append(']').toString();
    }

    // ---------------------------------------------------------------- producer side

    private String counterNote(BrokerSide broker, long before, long messages) {
        return broker.counterName() == null ? ""
                : String.format("%.3f %s per message", (broker.counter() - before) / (double) messages, broker.counterName());
    }

    /** The raw confirmed publish of N messages. */
    private Result raw(BrokerSide broker) throws Exception {
        List<OutboxMessage> messages = new ArrayList<>(n);
        for (String id : ids("raw", n)) {
            messages.add(broker.message(id));
        }
        String phase = broker.name() + " raw";
        long counter = broker.counter();
        phase(phase);
        long start = System.nanoTime();
        broker.rawPublish(messages, batch);
        double seconds = (System.nanoTime() - start) / 1e9;
        phaseEnd(phase, n);
        broker.expectPublished(n);
        return new Result(n / seconds, counterNote(broker, counter, n));
    }

    /** N messages committed to the outbox beforehand; the relay publishes them until all are SUCCESS. */
    private Result relay(BrokerSide broker) throws Exception {
        long insertWal = preload(broker, "outbox");
        long[] before = tableCounters();
        Relayed relayed = relayUntilSent(broker, () -> { });
        long[] after = tableCounters();
        long[] sums = relayWal.computeIfAbsent(broker.name(), k -> new long[5]);
        sums[0] += after[0] - before[0];
        sums[1] += insertWal;
        sums[2] += after[1] - before[1];
        sums[3] += after[2] - before[2];
        sums[4] += n;
        return new Result(n / relayed.seconds(), relayed.note());
    }

    /**
     * What PostgreSQL itself can do of the relay's work, without a broker: the same N rows preloaded,
     * then {@code relays} threads each read and mark a batch in one statement, until all are marked.
     * No relay goes faster than this on this database.
     */
    private Result floor(BrokerSide broker) throws Exception {
        preload(broker, "floor");
        String markBatch = (deleteSent ? "DELETE FROM onlyonce_message_log"
                : "UPDATE onlyonce_message_log SET status = 'SUCCESS', sent_at_ms = 1, next_attempt_at_ms = NULL")
                + " WHERE id = ANY(ARRAY(SELECT id FROM onlyonce_message_log WHERE next_attempt_at_ms IS NOT NULL"
                + " ORDER BY next_attempt_at_ms LIMIT ? FOR UPDATE SKIP LOCKED))"
                + " RETURNING id, exchange, routing_key, payload, headers";
        String phase = broker.name() + " floor";
        phase(phase);
        LongAdder marked = new LongAdder();
        long start = System.nanoTime();
        List<Future<?>> running = new ArrayList<>();
        // a pool of its own, closed at the end: its backends report their table statistics before the next phase
        HikariDataSource floorPool = pool(dataSource.getJdbcUrl(), relays);
        for (int r = 0; r < relays; r++) {
            running.add(producers.submit(() -> {
                try (Connection c = floorPool.getConnection(); PreparedStatement update = c.prepareStatement(markBatch)) {
                    while (true) {
                        update.setInt(1, batch);
                        int rows = 0;
                        try (ResultSet result = update.executeQuery()) {
                            while (result.next()) {
                                rows++;
                            }
                        }
                        if (rows == 0) {
                            return null;
                        }
                        marked.add(rows);
                    }
                }
            }));
        }
        double seconds;
        try {
            for (Future<?> future : running) {
                future.get(PHASE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
            seconds = (System.nanoTime() - start) / 1e9;
        } finally {
            floorPool.close();
        }
        phaseEnd(phase, n);
        if (marked.sum() != n) {
            throw new IllegalStateException("floor: " + marked.sum() + " rows marked for " + n);
        }
        return new Result(n / seconds, "");
    }

    /** N messages committed to the outbox, 500 per transaction, then VACUUM ANALYZE; returns the inserts' WAL bytes. */
    private long preload(BrokerSide broker, String prefix) throws Exception {
        truncate("onlyonce_message_log");
        List<String> ids = ids(prefix, n);
        long lsn = walLsn();
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            for (int i = 0; i < ids.size(); i++) {
                outbox.record(connection, broker.message(ids.get(i)));
                if (i % 500 == 499) {
                    connection.commit();
                }
            }
            connection.commit();
            connection.setAutoCommit(true);
        }
        long inserted = walLsn() - lsn;
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("VACUUM ANALYZE onlyonce_message_log");
        }
        return inserted;
    }

    private long walLsn() throws SQLException {
        return count("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn");
    }

    /**
     * The server's WAL position, and the outbox table's updates and HOT updates so far; waits until
     * the backends of the relays' closed pool have reported their table statistics.
     */
    private long[] tableCounters() throws SQLException, InterruptedException {
        Thread.sleep(300);
        long wal = walLsn();
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables"
                        + " WHERE relname = 'onlyonce_message_log'")) {
            r.next();
            return new long[] {wal, r.getLong(1), r.getLong(2)};
        }
    }

    private record Relayed(double seconds, double commitSeconds, String note) {
    }

    @FunctionalInterface
    private interface Work {
        void run(int index) throws Exception;
    }

    @FunctionalInterface
    private interface Load {
        void run() throws Exception;
    }

    /** Starts a relay, runs {@code load}, and waits until the relay marked N rows SUCCESS. */
    private Relayed relayUntilSent(BrokerSide broker, Load load) throws Exception {
        CountDownLatch sent = new CountDownLatch(n);
        LongAdder retried = new LongAdder();
        OutboxListener listener = new OutboxListener() {
            @Override
            public void onSent(OutboxMessage message) {
                sent.countDown();
            }

            @Override
            public void onRetry(OutboxMessage message, int attempt, Throwable error, Duration nextAttemptIn) {
                retried.increment();
            }
        };
        List<OutboxRelay> running = new ArrayList<>();
        // a pool of the relays' own, closed at the end of the phase: its backends then report their
        // table statistics at once (the HOT share), instead of up to 10 s later
        HikariDataSource relayPool = pool(dataSource.getJdbcUrl(), (notify ? 2 * relays : relays) + 1);
        for (int i = 0; i < relays; i++) {
            running.add(new OutboxRelay(relayPool, JdbcDialect.POSTGRESQL, broker.transport(),
                    RelayConfig.custom().batchSize(batch).pipelineDepth(depth).deleteSent(deleteSent).build(), listener));
        }
        String phase = broker.name() + " relay";
        long counter = broker.counter();
        double seconds;
        double commitSeconds;
        List<PostgresWakeUp> listening = new ArrayList<>();
        phase(phase);
        long start = System.nanoTime();
        running.forEach(OutboxRelay::start);
        if (notify) {
            running.forEach(relay -> listening.add(new PostgresWakeUp(relayPool, relay::wakeUp).start()));
        } else {
            awake = running;
        }
        try {
            load.run();
            commitSeconds = (System.nanoTime() - start) / 1e9;
            if (!sent.await(PHASE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("the relay confirmed " + (n - sent.getCount()) + " of " + n + " messages in "
                        + PHASE_TIMEOUT);
            }
            seconds = (System.nanoTime() - start) / 1e9;
            phaseEnd(phase, n);
        } finally {
            awake = List.of();
            listening.forEach(PostgresWakeUp::close);
            running.forEach(OutboxRelay::stop);
            relayPool.close();
        }
        long success = deleteSent ? n - count("SELECT COUNT(*) FROM onlyonce_message_log")
                : count("SELECT COUNT(*) FROM onlyonce_message_log WHERE status = 'SUCCESS'");
        if (success != n || retried.sum() != 0) {
            throw new IllegalStateException("relay: " + success + " SUCCESS rows, " + retried.sum() + " retried, for " + n);
        }
        broker.expectPublished(n);
        long polls = 0;
        for (OutboxRelay relay : running) {
            polls += relay.stats().polls();
        }
        String counted = counterNote(broker, counter, n);
        return new Relayed(seconds, commitSeconds, String.format("%.1f messages per relay poll", n / (double) polls)
                + (counted.isEmpty() ? "" : ", " + counted));
    }

    /** Business transactions that each record one outbox message, while the relay publishes them. */
    private Result outboxAndRelay(BrokerSide broker) throws Exception {
        truncate("bench_orders", "onlyonce_message_log");
        String prefix = "order-" + (++sequence);
        Relayed relayed = relayUntilSent(broker, () -> onClients(i -> businessTransaction(broker, prefix + "-" + i, true)));
        long orders = count("SELECT COUNT(*) FROM bench_orders");
        if (orders != n) {
            throw new IllegalStateException(orders + " orders for " + n);
        }
        commitRates.computeIfAbsent(broker.name(), b -> new ArrayList<>()).add(n / relayed.commitSeconds());
        return new Result(n / relayed.seconds(), String.format("business commits %,.0f tx/s, ", n / relayed.commitSeconds())
                + relayed.note());
    }

    /** The same business transactions without the outbox. */
    private Result businessOnly(BrokerSide broker) throws Exception {
        truncate("bench_orders");
        String prefix = "order-" + (++sequence);
        String phase = broker.name() + " business";
        phase(phase);
        long start = System.nanoTime();
        onClients(i -> businessTransaction(broker, prefix + "-" + i, false));
        double seconds = (System.nanoTime() - start) / 1e9;
        phaseEnd(phase, n);
        long orders = count("SELECT COUNT(*) FROM bench_orders");
        if (orders != n) {
            throw new IllegalStateException(orders + " orders for " + n);
        }
        return new Result(n / seconds, "");
    }

    /** One order row, and with {@code withOutbox} one outbox message, in one transaction. */
    private void businessTransaction(BrokerSide broker, String orderId, boolean withOutbox) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement insert = connection.prepareStatement(INSERT_ORDER)) {
                insert.setString(1, orderId);
                insert.setString(2, "phone");
                insert.setInt(3, 1);
                insert.executeUpdate();
            }
            if (withOutbox) {
                outbox.record(connection, broker.message(OutboxMessage.id(orderId, "created")));
                if (notify) {
                    PostgresWakeUp.notifyRelays(connection);
                }
            }
            connection.commit();
            connection.setAutoCommit(true);
        }
        if (withOutbox) {
            // as the Spring integration does after each commit that recorded a message
            awake.forEach(OutboxRelay::wakeUp);
        }
    }

    /** Runs {@code work} for indexes 0..n-1 spread over the producer clients; returns when all are done. */
    private void onClients(Work work) throws Exception {
        List<Future<?>> running = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            int client = c;
            running.add(producers.submit(() -> {
                for (int i = client; i < n; i += clients) {
                    work.run(i);
                }
                return null;
            }));
        }
        for (Future<?> future : running) {
            future.get(PHASE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    // ---------------------------------------------------------------- consumer side

    /** Preloads the delivery stream, then drains it with the plain or the idempotent consumer, and checks the effects. */
    private Result consume(BrokerSide broker, boolean idempotent) throws Exception {
        truncate("bench_effects", "onlyonce_inbox");
        List<OutboxMessage> stream = new ArrayList<>();
        for (String id : deliveries("msg-" + (++sequence))) {
            stream.add(broker.delivery(id, idempotent));
        }
        int deliveries = stream.size();
        int duplicates = deliveries - n;
        broker.preload(stream, idempotent);
        String phase = broker.name() + (idempotent ? " idempotent" : " plain");
        phase(phase);
        BrokerSide.Drain drain = broker.drain(idempotent, deliveries, settings);
        phaseEnd(phase, deliveries);
        long effects = count("SELECT COUNT(*) FROM bench_effects");
        long distinct = count("SELECT COUNT(DISTINCT message_id) FROM bench_effects");
        if (idempotent) {
            long inboxRows = count("SELECT COUNT(*) FROM onlyonce_inbox");
            if (effects != n || distinct != n || inboxRows != n || drain.processed() != n
                    || drain.duplicates() != duplicates || drain.failed() != 0) {
                throw new IllegalStateException("EXACTLY-ONCE VIOLATED: " + effects + " effect rows, " + distinct
                        + " distinct, " + inboxRows + " inbox rows for " + n + " distinct messages and " + duplicates
                        + " duplicates; consumer processed " + drain.processed() + ", duplicates " + drain.duplicates()
                        + ", failed " + drain.failed());
            }
        } else if (effects != deliveries || distinct != n || drain.failed() != 0) {
            throw new IllegalStateException("plain consumer: " + effects + " effect rows, " + distinct + " distinct, "
                    + drain.failed() + " failed, for " + deliveries + " deliveries");
        }
        return new Result(deliveries / drain.seconds(), String.format("%,d effect rows for %,d distinct (%,d deliveries)",
                effects, distinct, deliveries));
    }

    /**
     * N distinct ids; every 1/share-th of them published a second time about 50 messages later, as a
     * relay re-sending after a lost confirm, or a redelivery after a consumer crash, would.
     */
    private List<String> deliveries(String prefix) {
        int every = duplicateShare <= 0 ? 0 : (int) Math.round(1 / duplicateShare);
        List<String> stream = new ArrayList<>();
        ArrayDeque<String> again = new ArrayDeque<>();
        for (int i = 0; i < n; i++) {
            String id = prefix + "-" + i;
            stream.add(id);
            if (every > 0 && i % every == 0) {
                again.add(id);
            }
            if (again.size() > Math.max(1, 50 / Math.max(1, every))) {
                stream.add(again.poll());
            }
        }
        stream.addAll(again);
        return stream;
    }

    static String payload(String id) {
        return "{\"order\":\"" + id + "\",\"item\":\"phone\",\"quantity\":1}";
    }

    // ---------------------------------------------------------------- PostgreSQL

    private static void createDatabase(String server) throws SQLException {
        try (Connection c = DriverManager.getConnection(server + "postgres", "postgres", "");
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + DATABASE);
            s.execute("CREATE DATABASE " + DATABASE);
        }
    }

    private static void dropDatabase(String server) throws SQLException {
        try (Connection c = DriverManager.getConnection(server + "postgres", "postgres", "");
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + DATABASE + " WITH (FORCE)");
        }
    }

    private static void prepareSchema(HikariDataSource dataSource) throws SQLException {
        MessagingSchema.apply(dataSource, JdbcDialect.POSTGRESQL);
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE bench_orders (id VARCHAR(64) PRIMARY KEY, item VARCHAR(64) NOT NULL,"
                    + " quantity INTEGER NOT NULL, created_at TIMESTAMPTZ NOT NULL DEFAULT now())");
            // no unique constraint: the plain listener's duplicates must show
            s.execute("CREATE TABLE bench_effects (id BIGSERIAL PRIMARY KEY, message_id VARCHAR(255) NOT NULL,"
                    + " payload TEXT NOT NULL)");
        }
    }

    private static HikariDataSource pool(String url, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername("postgres");
        config.setPassword("");
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        return new HikariDataSource(config);
    }

    private void truncate(String... tables) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("TRUNCATE " + String.join(", ", tables));
        }
    }

    private long count(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        }
    }

    private void phase(String name) throws SQLException {
        if (waits != null) {
            waits.begin(name);
        }
    }

    private void phaseEnd(String name, long messages) throws SQLException, InterruptedException {
        if (waits != null) {
            waits.end(name, messages);
        }
    }

    // ---------------------------------------------------------------- helpers

    private static List<String> ids(String prefix, int count) {
        List<String> ids = new ArrayList<>(count);
        String run = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        for (int i = 0; i < count; i++) {
            ids.add(run + "-" + i);
        }
        return ids;
    }

    private static String option(Map<String, String> args, String name, String fallback) {
        String property = System.getProperty("bench." + name);
        return property != null && !property.isBlank() ? property : args.getOrDefault(name, fallback);
    }

    static double median(List<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    private static String fmt(double rate) {
        return String.format("%,.0f", rate);
    }

    /** Spring AMQP and HikariCP log through SLF4J; logback's default is DEBUG on the console. */
    private static void quietLogging() {
        org.slf4j.Logger root = org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        if (root instanceof ch.qos.logback.classic.Logger logback) {
            logback.setLevel(ch.qos.logback.classic.Level.WARN);
        }
    }

    /**
     * @param rate messages or deliveries per second, until the last one was done
     * @param note what the phase left behind
     */
    private record Result(double rate, String note) {
    }

    /**
     * Samples {@code pg_stat_activity} of the bench database every 10 ms on a connection of its own
     * (what each client backend waits on, or CPU when it waits on nothing), and reads
     * {@code pg_stat_wal} before and after each phase (WAL syncs per message).
     */
    static final class PgWaits implements AutoCloseable {
        private static final String SAMPLE = "SELECT state, COALESCE(wait_event_type, 'CPU'), COALESCE(wait_event, '-'),"
                + " COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
                + " AND backend_type = 'client backend' GROUP BY 1, 2, 3";
        private final Connection connection;
        private final Connection walConnection;
        private final Thread thread;
        private final Map<String, Map<String, Long>> counts = new LinkedHashMap<>();
        private final Map<String, Long> samples = new LinkedHashMap<>();
        private final Map<String, double[]> wal = new LinkedHashMap<>();
        private volatile String current;
        private volatile boolean running = true;
        private long[] walBefore;

        private PgWaits(String url) throws SQLException {
            this.connection = DriverManager.getConnection(url, "postgres", "");
            this.walConnection = DriverManager.getConnection(url, "postgres", "");
            this.thread = new Thread(this::loop, "bench-pg-waits");
            thread.setDaemon(true);
        }

        static PgWaits start(String url) throws SQLException {
            PgWaits waits = new PgWaits(url);
            waits.thread.start();
            return waits;
        }

        void begin(String phase) throws SQLException {
            walBefore = walCounters();
            current = phase;
        }

        void end(String phase, long messages) throws SQLException, InterruptedException {
            current = null;
            // backends report their WAL counters when they have been idle for about a second
            Thread.sleep(1_500);
            long[] after = walCounters();
            double[] sums = wal.computeIfAbsent(phase, k -> new double[4]);
            sums[0] += after[0] - walBefore[0];
            sums[1] += after[1] - walBefore[1];
            sums[2] += after[2] - walBefore[2];
            sums[3] += messages;
        }

        private long[] walCounters() throws SQLException {
            try (Statement s = walConnection.createStatement();
                    ResultSet r = s.executeQuery("SELECT wal_sync, wal_records, wal_bytes FROM pg_stat_wal")) {
                r.next();
                return new long[] {r.getLong(1), r.getLong(2), r.getLong(3)};
            }
        }

        private void loop() {
            while (running) {
                String phase = current;
                if (phase != null) {
                    try (Statement s = connection.createStatement(); ResultSet r = s.executeQuery(SAMPLE)) {
                        Map<String, Long> phaseCounts;
                        synchronized (this) {
                            phaseCounts = counts.computeIfAbsent(phase, k -> new TreeMap<>());
                            samples.merge(phase, 1L, Long::sum);
                        }
                        while (r.next()) {
                            String key = r.getString(1) + " " + r.getString(2) + "/" + r.getString(3);
                            synchronized (this) {
                                phaseCounts.merge(key, r.getLong(4), Long::sum);
                            }
                        }
                    } catch (SQLException e) {
                        running = false;
                        System.out.println("pg_stat_activity sampling stopped: " + e.getMessage());
                    }
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        synchronized void report() {
            System.out.println();
            System.out.println("PostgreSQL backends of the bench database, average count per 10 ms sample"
                    + " (state wait_event_type/wait_event; CPU = no wait event), and WAL per message:");
            for (Map.Entry<String, Map<String, Long>> phase : counts.entrySet()) {
                long n = samples.get(phase.getKey());
                double[] w = wal.getOrDefault(phase.getKey(), new double[4]);
                double m = Math.max(1, w[3]);
                System.out.printf("  %s (%d samples; per message: %.2f WAL syncs, %.1f WAL records, %,.0f WAL bytes)%n",
                        phase.getKey(), n, w[0] / m, w[1] / m, w[2] / m);
                phase.getValue().entrySet().stream()
                        .sorted((x, y) -> Long.compare(y.getValue(), x.getValue()))
                        .forEach(e -> System.out.printf("      %-48s %6.2f%n", e.getKey(), e.getValue() / (double) n));
            }
        }

        @Override
        public void close() throws SQLException {
            running = false;
            thread.interrupt();
            connection.close();
            walConnection.close();
        }
    }
}
