package io.onlyonce.bench.peers;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * OnlyOnce's outbox relay against namastack-outbox and the Spring Modulith event publication
 * registry, and against the raw publish, on the same PostgreSQL and the same broker, in one run.
 *
 * <p>Each contender, on each broker, in each round, gets a database of its own
 * ({@code onlyonce_bench_peers_CONTENDER_BROKER}, made and dropped) and a topic or queue of its own
 * with a plain consumer on it, then:
 * <ol>
 *   <li>warm-up: a tenth of N (50 to 1,000) business transactions, until all are received;
 *   <li>throughput: {@code clients} threads run N business transactions as fast as they can, each
 *       inserting one row into {@code bench_orders} and recording one event in the same transaction
 *       (the raw contender: publishing it); messages/s = N / (first commit .. the consumer has
 *       received all N distinct messages). Around this phase: the WAL of the contender's database and
 *       the CPU time of its PostgreSQL backends ({@link Postgres}), per message;
 *   <li>latency: the same transactions paced at half the rate just measured (at most N, 10 s
 *       worth), commit-to-receipt p50 and p99 (the commit time taken when the commit returned, the
 *       receipt when the consumer got the message: both in this JVM).
 * </ol>
 * Rounds are interleaved (the contenders' order turns from round to round); the medians are
 * printed, then one {@code figure NAME VALUE} line each.
 *
 * <p>Arguments: {@code --broker=kafka|rabbit|both} (both), {@code --n=20000}, {@code --clients=8},
 * {@code --rounds=3}, {@code --contenders=onlyonce,namastack,modulith,raw}. Servers: PostgreSQL at
 * {@code ONLYONCE_PG_URL} (jdbc:postgresql://127.0.0.1:5432/, user postgres), Kafka at
 * {@code ONLYONCE_KAFKA_BOOTSTRAP} (127.0.0.1:9092), RabbitMQ at {@code ONLYONCE_RABBIT_HOST}:
 * {@code ONLYONCE_RABBIT_PORT} (127.0.0.1:5672, guest/guest).
 */
public final class Peers {

    static final List<String> CONTENDERS = List.of("onlyonce", "namastack", "modulith", "raw");
    /** One pool size for every contender's database connections. */
    static final int POOL = 30;
    private static final long DRAIN_TIMEOUT_NANOS = TimeUnit.MINUTES.toNanos(2);

    /** Where the brokers are. */
    record Servers(String kafkaBootstrap, String rabbitHost, int rabbitPort) {
    }

    /** One contender on one broker in one round. */
    record Cell(double messagesPerSecond, double walBytesPerMessage, boolean walServerWide, double cpuMicrosPerMessage,
            double paceRate, double p50Millis, double p99Millis, long duplicates, String error) {
    }

    private final Postgres postgres;
    private final Servers servers;
    private final int n;
    private final int clients;
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    private Peers(Postgres postgres, Servers servers, int n, int clients) {
        this.postgres = postgres;
        this.servers = servers;
        this.n = n;
        this.clients = clients;
    }

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Throwable e) {
            System.out.println();
            System.out.println("FAILED: " + e);
            e.printStackTrace(System.out);
            System.exit(1);
        }
        System.exit(0); // the brokers' clients may keep threads alive
    }

    private static void run(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        for (String arg : args) {
            if (!arg.startsWith("--") || !arg.contains("=")) {
                throw new IllegalArgumentException("expected --name=value, got " + arg);
            }
            options.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
        }
        String broker = options.getOrDefault("broker", "both");
        int n = Integer.parseInt(options.getOrDefault("n", "20000"));
        int clients = Integer.parseInt(options.getOrDefault("clients", "8"));
        int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
        List<String> contenders = Arrays.asList(options.getOrDefault("contenders", String.join(",", CONTENDERS)).split(","));
        List<String> brokers = broker.equals("both") ? List.of("kafka", "rabbit") : List.of(broker);
        if (n < 100 || clients < 1 || rounds < 1 || !CONTENDERS.containsAll(contenders)
                || !List.of("kafka", "rabbit").containsAll(brokers)) {
            throw new IllegalArgumentException("n (at least 100), clients, rounds at least 1; broker kafka|rabbit|both;"
                    + " contenders among " + CONTENDERS);
        }
        Servers servers = new Servers(env("ONLYONCE_KAFKA_BOOTSTRAP", "127.0.0.1:9092"), env("ONLYONCE_RABBIT_HOST", "127.0.0.1"),
                Integer.parseInt(env("ONLYONCE_RABBIT_PORT", "5672")));
        Postgres postgres = new Postgres(env("ONLYONCE_PG_URL", "jdbc:postgresql://127.0.0.1:5432/"));
        Peers peers = new Peers(postgres, servers, n, clients);
        System.out.printf(Locale.ROOT, "outbox peers: n=%d, clients=%d, rounds=%d, brokers=%s, contenders=%s, pool=%d%n", n,
                clients, rounds, brokers, contenders, POOL);
        Map<String, List<Cell>> cells = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            for (String b : brokers) {
                List<String> order = new ArrayList<>(contenders);
                Collections.rotate(order, -round);
                for (String contender : order) {
                    Cell cell = peers.cell(contender, b, round);
                    cells.computeIfAbsent(b + " " + contender, key -> new ArrayList<>()).add(cell);
                    System.out.printf(Locale.ROOT, "round %d %-6s %-9s %s%n", round + 1, b, contender, describe(cell));
                }
            }
        }
        report(brokers, contenders, cells, n, clients, rounds);
    }

    private static String describe(Cell cell) {
        if (cell.error() != null) {
            return "FAILED: " + cell.error();
        }
        return String.format(Locale.ROOT, "%,.0f msg/s, WAL %s B/msg, PG CPU %.0f us/msg, at %,.0f msg/s p50 %.1f ms p99 %.1f ms%s",
                cell.messagesPerSecond(), Double.isNaN(cell.walBytesPerMessage()) ? "-"
                        : String.format(Locale.ROOT, "%s%.0f", cell.walServerWide() ? "~" : "", cell.walBytesPerMessage()),
                cell.cpuMicrosPerMessage(), cell.paceRate(), cell.p50Millis(), cell.p99Millis(),
                cell.duplicates() > 0 ? ", " + cell.duplicates() + " duplicates received" : "");
    }

    /** One contender on one broker: fresh database, fresh topic or queue, the three phases. */
    private Cell cell(String contender, String broker, int round) {
        boolean raw = contender.equals("raw");
        String database = "onlyonce_bench_peers_" + contender + "_" + broker;
        String name = "peers-" + contender + "-" + run + "-" + round;
        int warm = Math.max(50, Math.min(1_000, n / 10));
        Receipts receipts = new Receipts(warm + 2 * n);
        HikariDataSource dataSource = null;
        Destination destination = null;
        Contender running = null;
        ExecutorService threads = Executors.newFixedThreadPool(clients, task -> {
            Thread thread = new Thread(task, "peers-client");
            thread.setDaemon(true);
            return thread;
        });
        try {
            if (!raw) {
                postgres.create(database);
            }
            destination = broker.equals("kafka") ? new KafkaDestination(servers.kafkaBootstrap(), name)
                    : new RabbitDestination(servers.rabbitHost(), servers.rabbitPort(), name);
            destination.consume(receipts);
            switch (contender) {
                case "onlyonce":
                    dataSource = pool(postgres.url(database));
                    running = new OnlyOnceContender(dataSource, destination, servers);
                    break;
                case "namastack":
                case "modulith":
                    running = new SpringContender(contender, postgres.url(database), POOL, destination, servers);
                    break;
                default:
                    running = new RawContender(destination);
            }
            phase(threads, running, 0, warm, 0);
            awaitReceived(receipts, warm, destination);

            Postgres.Mark before = raw ? null : postgres.mark(database);
            long[] commits = phase(threads, running, warm, n, 0);
            awaitReceived(receipts, warm + n, destination);
            Postgres.Mark after = raw ? null : postgres.mark(database);
            long first = Long.MAX_VALUE;
            for (long commit : commits) {
                first = Math.min(first, commit);
            }
            long last = 0;
            for (int i = warm; i < warm + n; i++) {
                last = Math.max(last, receipts.at(i));
            }
            double rate = n / ((last - first) / 1e9);
            Postgres.Cost cost = raw ? null : postgres.cost(database, before, after);

            double pace = rate / 2;
            int paced = (int) Math.max(100, Math.min(n, pace * 10));
            long[] pacedCommits = phase(threads, running, warm + n, paced, pace);
            awaitReceived(receipts, warm + n + paced, destination);
            double[] latencies = new double[paced];
            for (int i = 0; i < paced; i++) {
                latencies[i] = Math.max(0, receipts.at(warm + n + i) - pacedCommits[i]) / 1e6;
            }
            Arrays.sort(latencies);
            return new Cell(rate, raw ? Double.NaN : cost.walBytes() / (double) n, !raw && cost.serverWide(),
                    raw ? Double.NaN : cost.cpuSeconds() * 1e6 / n, pace, percentile(latencies, 0.50),
                    percentile(latencies, 0.99), receipts.duplicates(), null);
        } catch (Throwable e) {
            e.printStackTrace(System.out);
            return new Cell(Double.NaN, Double.NaN, false, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0,
                    e.toString());
        } finally {
            threads.shutdownNow();
            close(running);
            close(destination);
            close(dataSource);
            if (!raw) {
                try {
                    postgres.drop(database);
                } catch (Exception e) {
                    System.out.println("could not drop " + database + ": " + e);
                }
            }
        }
    }

    /**
     * Runs {@code count} transactions, messages {@code from} on, on the client threads, as fast as
     * they can ({@code rate} 0) or the i-th due at i / rate seconds; returns when each committed.
     *
     * @return {@code System.nanoTime()} when each commit returned, by its index in the phase
     */
    private long[] phase(ExecutorService threads, Contender contender, int from, int count, double rate) throws Exception {
        long[] commits = new long[count];
        AtomicInteger next = new AtomicInteger();
        long start = System.nanoTime();
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < clients; t++) {
            workers.add(threads.submit(() -> {
                int i;
                while ((i = next.getAndIncrement()) < count) {
                    if (rate > 0) {
                        long due = start + (long) (i * 1e9 / rate);
                        long wait;
                        while ((wait = due - System.nanoTime()) > 0) {
                            LockSupport.parkNanos(wait);
                        }
                    }
                    contender.transaction(OrderPlaced.of(from + i));
                    commits[i] = System.nanoTime();
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get();
        }
        contender.afterPhase();
        return commits;
    }

    private static void awaitReceived(Receipts receipts, int expected, Destination destination) throws InterruptedException {
        long deadline = System.nanoTime() + DRAIN_TIMEOUT_NANOS;
        while (receipts.distinct() < expected) {
            if (destination instanceof KafkaDestination) {
                ((KafkaDestination) destination).check();
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the consumer received " + receipts.distinct() + " of " + expected
                        + " messages in " + TimeUnit.NANOSECONDS.toSeconds(DRAIN_TIMEOUT_NANOS) + " s");
            }
            Thread.sleep(1);
        }
    }

    private static double percentile(double[] sorted, double p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    private static HikariDataSource pool(String url) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername("postgres");
        config.setPassword("");
        config.setMaximumPoolSize(POOL);
        config.setMinimumIdle(POOL);
        return new HikariDataSource(config);
    }

    private static void close(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception e) {
            System.out.println("close: " + e);
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    // ---------------------------------------------------------------- report

    private static double median(List<Cell> cells, java.util.function.ToDoubleFunction<Cell> value) {
        double[] values = cells.stream().filter(c -> c.error() == null).mapToDouble(value).filter(v -> !Double.isNaN(v))
                .sorted().toArray();
        if (values.length == 0) {
            return Double.NaN;
        }
        return values.length % 2 == 1 ? values[values.length / 2] : (values[values.length / 2 - 1] + values[values.length / 2]) / 2;
    }

    private static void report(List<String> brokers, List<String> contenders, Map<String, List<Cell>> cells, int n, int clients,
            int rounds) {
        System.out.println();
        System.out.printf(Locale.ROOT, "Medians of %d round(s), N=%d messages per phase, %d client threads%n", rounds, n, clients);
        System.out.printf(Locale.ROOT, "%-7s %-10s %12s %12s %14s %12s %9s %9s  %s%n", "broker", "contender", "msgs/s",
                "WAL B/msg", "PG CPU us/msg", "paced at/s", "p50 ms", "p99 ms", "note");
        List<String> figures = new ArrayList<>();
        for (String broker : brokers) {
            Map<String, Double> rates = new HashMap<>();
            for (String contender : contenders) {
                List<Cell> list = cells.getOrDefault(broker + " " + contender, List.of());
                long failed = list.stream().filter(c -> c.error() != null).count();
                double rate = median(list, Cell::messagesPerSecond);
                double wal = median(list, Cell::walBytesPerMessage);
                boolean serverWide = list.stream().anyMatch(Cell::walServerWide);
                double cpu = median(list, Cell::cpuMicrosPerMessage);
                double p50 = median(list, Cell::p50Millis);
                double p99 = median(list, Cell::p99Millis);
                double pace = median(list, Cell::paceRate);
                String note = note(broker, contender);
                if (failed > 0) {
                    note = failed + " of " + list.size() + " round(s) failed: "
                            + list.stream().filter(c -> c.error() != null).findFirst().get().error() + "; " + note;
                }
                System.out.printf(Locale.ROOT, "%-7s %-10s %12s %12s %14s %12s %9s %9s  %s%n", broker, contender, fmt(rate, "%,.0f"),
                        Double.isNaN(wal) ? "-" : (serverWide ? "~" : "") + fmt(wal, "%.0f"), fmt(cpu, "%.0f"), fmt(pace, "%,.0f"),
                        fmt(p50, "%.1f"), fmt(p99, "%.1f"), note);
                if (Double.isNaN(rate)) {
                    continue;
                }
                rates.put(contender, rate);
                figures.add(figure(contender + "_" + broker + "_msgs_per_s", rate, "%.0f"));
                if (!contender.equals("raw")) {
                    figures.add(figure("wal_bytes_per_message_" + contender + "_" + broker, wal, "%.0f"));
                    figures.add(figure("pg_cpu_us_per_message_" + contender + "_" + broker, cpu, "%.0f"));
                }
                figures.add(figure("p50_ms_half_load_" + contender + "_" + broker, p50, "%.1f"));
                figures.add(figure("p99_ms_half_load_" + contender + "_" + broker, p99, "%.1f"));
            }
            Double relay = rates.get("onlyonce");
            if (relay != null) {
                double best = 0;
                for (String peer : List.of("raw", "namastack", "modulith")) {
                    if (rates.containsKey(peer)) {
                        figures.add(figure("relay_over_" + peer + "_" + broker, relay / rates.get(peer), "%.2f"));
                        if (!peer.equals("raw")) {
                            best = Math.max(best, rates.get(peer));
                        }
                    }
                }
                if (best > 0) {
                    figures.add(figure("relay_over_best_peer_" + broker, relay / best, "%.2f"));
                }
            }
        }
        System.out.println();
        System.out.println("WAL: the records of the contender's database (pg_waldump); ~ marks the whole server's WAL."
                + " PG CPU: user+system time of its client backends.");
        System.out.println("Latency: from the commit's return to the plain consumer's receipt, at half the contender's own"
                + " measured rate.");
        System.out.println();
        figures.forEach(System.out::println);
    }

    private static String note(String broker, String contender) {
        switch (contender) {
            case "onlyonce":
                return "JdbcOutbox + OutboxRelay (RelayConfig defaults, woken after each commit)";
            case "namastack":
                return "namastack-outbox 1.0.0 JDBC, handler publishing with an acknowledged send"
                        + (broker.equals("kafka") ? " (send().get())" : " (correlated confirm)");
            case "modulith":
                return broker.equals("kafka") ? "Spring Modulith 2.1.1 JDBC registry + spring-modulith-events-kafka 2.0.3 externalization"
                        : "Spring Modulith 2.1.1 JDBC registry + own confirming @ApplicationModuleListener"
                                + " (spring-modulith-events-amqp not resolvable here)";
            default:
                return "straight to the broker, acknowledged, no database";
        }
    }

    private static String fmt(double value, String format) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, format, value);
    }

    private static String figure(String name, double value, String format) {
        return "figure " + name + " " + (Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, format, value));
    }
}
