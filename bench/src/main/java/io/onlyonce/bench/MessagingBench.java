package io.onlyonce.bench;

import com.rabbitmq.client.Channel;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.onlyonce.jdbc.JdbcDialect;
import io.onlyonce.messaging.ConsumerConfig;
import io.onlyonce.messaging.IdempotentConsumer;
import io.onlyonce.messaging.JdbcOutbox;
import io.onlyonce.messaging.MessageHandler;
import io.onlyonce.messaging.MessagingSchema;
import io.onlyonce.messaging.OutboxListener;
import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.messaging.OutboxRelay;
import io.onlyonce.messaging.RelayConfig;
import io.onlyonce.messaging.RelayStats;
import io.onlyonce.messaging.rabbit.IdempotentRabbitListener;
import io.onlyonce.messaging.rabbit.RabbitMessageTransport;
import io.onlyonce.messaging.rabbit.RabbitTopology;
import java.nio.charset.StandardCharsets;
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
import java.util.function.LongSupplier;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageDeliveryMode;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory.ConfirmType;
import org.springframework.amqp.rabbit.connection.CorrelationData;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.api.ChannelAwareMessageListener;

/**
 * The message layer on PostgreSQL and RabbitMQ against the same work done without it, measured in
 * the same run, rounds interleaved (the order alternates from round to round), medians printed.
 *
 * <p>Producer side, N messages each:
 * <ul>
 *   <li>(a) baseline: N messages published straight to RabbitMQ on one thread, in batches of the
 *       relay's batch size, waiting for the correlated publisher confirms of each batch (mandatory,
 *       persistent): the relay's publishing without the outbox table;
 *   <li>(b) OnlyOnce: N business transactions on {@code clients} threads, each inserting one order
 *       row and recording one outbox message ({@link JdbcOutbox}) before its commit, then waking the
 *       {@link OutboxRelay} (running, default config, {@link RabbitMessageTransport}); the clock stops
 *       when the relay marked all N rows SUCCESS on their confirms;
 *   <li>(c) the same business transactions without the outbox: the outbox's share of the transaction.
 * </ul>
 * Consumer side, the same delivery stream each: N distinct messages plus 10 % of them published a
 * second time about 50 messages later (at-least-once delivery), preloaded into a queue, then drained
 * by a {@link SimpleMessageListenerContainer} ({@code consumers} threads, manual acks):
 * <ul>
 *   <li>(a) baseline: a listener that inserts one effect row per delivery with autocommit and acks
 *       (at-least-once, not idempotent: every duplicate takes effect again);
 *   <li>(b) OnlyOnce: {@link IdempotentRabbitListener} on an {@link IdempotentConsumer} whose handler
 *       inserts the same row in the inbox transaction. The bench fails unless the effect count equals
 *       the distinct count.
 * </ul>
 * Settings as system properties ({@code -Dbench.n=4000}) or arguments ({@code --n=4000}): {@code n} (4000),
 * {@code rounds} (5), {@code warmup} rounds (1), producer {@code clients} (4), listener
 * {@code consumers} (4), {@code prefetch} (50), {@code duplicates} (0.1), {@code sides}
 * ({@code producer,consumer}), {@code pgWaits} (false: sample {@code pg_stat_activity} every 10 ms
 * and read {@code pg_stat_wal} around each phase, and print where the backends waited).
 *
 * <p>Servers: PostgreSQL at {@code ONLYONCE_PG_URL} (jdbc:postgresql://127.0.0.1:5432/, user
 * postgres; database {@value #DATABASE} is created and dropped), RabbitMQ at
 * {@code ONLYONCE_RABBIT_HOST}:{@code ONLYONCE_RABBIT_PORT} (127.0.0.1:5672, guest/guest; a scratch
 * virtual host is created and deleted with {@code rabbitmqctl}).
 *
 * <pre>bench/run.sh MessagingBench [-Dbench.n=4000] [-Dbench.rounds=5] [-Dbench.clients=4] [-Dbench.consumers=4]</pre>
 */
public final class MessagingBench {

    static final String DATABASE = "onlyonce_bench_msg";
    private static final String ROUTING_KEY = "order.created";
    private static final int BATCH = RelayConfig.DEFAULT_BATCH_SIZE;
    private static final Duration PHASE_TIMEOUT = Duration.ofMinutes(2);
    private static final String INSERT_ORDER = "INSERT INTO bench_orders (id, item, quantity) VALUES (?, ?, ?)";
    private static final String INSERT_EFFECT = "INSERT INTO bench_effects (message_id, payload) VALUES (?, ?)";

    private final int n;
    private final int clients;
    private final int consumers;
    private final int prefetch;
    private final double duplicateShare;
    private final HikariDataSource dataSource;
    private final RabbitTemplate template;
    private final RabbitMessageTransport transport;
    private final CachingConnectionFactory consuming;
    private final RabbitAdmin admin;
    private final RabbitTopology produced;
    private final RabbitTopology plainQueue;
    private final RabbitTopology inboxQueue;
    private final ExecutorService producers;
    private final JdbcOutbox outbox = new JdbcOutbox(JdbcDialect.POSTGRESQL);
    private final PgWaits waits;
    /** Channels the publishing connection factory opened: Spring AMQP keeps a channel with pending confirms out of its cache. */
    private final LongAdder channelsOpened = new LongAdder();
    private long sequence;

    private MessagingBench(int n, int clients, int consumers, int prefetch, double duplicateShare,
            HikariDataSource dataSource, CachingConnectionFactory confirming, CachingConnectionFactory consuming,
            PgWaits waits) {
        this.n = n;
        this.clients = clients;
        this.consumers = consumers;
        this.prefetch = prefetch;
        this.duplicateShare = duplicateShare;
        this.dataSource = dataSource;
        this.consuming = consuming;
        this.waits = waits;
        confirming.addChannelListener((channel, transactional) -> channelsOpened.increment());
        this.template = new RabbitTemplate(confirming);
        template.setMandatory(true);
        this.transport = new RabbitMessageTransport(template);
        this.admin = new RabbitAdmin(consuming);
        this.produced = RabbitTopology.forConsumer("bench.orders", ROUTING_KEY, "bench.orders.sink");
        this.plainQueue = RabbitTopology.forConsumer("bench.plain", ROUTING_KEY, "bench.plain");
        this.inboxQueue = RabbitTopology.forConsumer("bench.inbox", ROUTING_KEY, "bench.inbox");
        produced.declare(admin);
        plainQueue.declare(admin);
        inboxQueue.declare(admin);
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
        System.exit(0); // the AMQP client's and Spring AMQP's pools may keep threads alive
    }

    private static void run(String[] args) throws Exception {
        Map<String, String> options = Harness.args(args);
        int n = Integer.parseInt(option(options, "n", "4000"));
        int rounds = Integer.parseInt(option(options, "rounds", "5"));
        int warmup = Integer.parseInt(option(options, "warmup", "1"));
        int clients = Integer.parseInt(option(options, "clients", "4"));
        int consumers = Integer.parseInt(option(options, "consumers", "4"));
        int prefetch = Integer.parseInt(option(options, "prefetch", "50"));
        double duplicates = Double.parseDouble(option(options, "duplicates", "0.1"));
        List<String> sides = List.of(option(options, "sides", "producer,consumer").split(","));
        boolean pgWaits = Boolean.parseBoolean(option(options, "pgWaits", "false"));
        String pgServer = Harness.env("ONLYONCE_PG_URL", "jdbc:postgresql://127.0.0.1:5432/");
        String rabbitHost = Harness.env("ONLYONCE_RABBIT_HOST", "127.0.0.1");
        int rabbitPort = Integer.parseInt(Harness.env("ONLYONCE_RABBIT_PORT", "5672"));
        String rabbitmqctl = Harness.env("ONLYONCE_RABBITMQCTL", "rabbitmqctl");
        if (n < 1 || rounds < 1 || warmup < 0 || clients < 1 || consumers < 1 || prefetch < 1 || duplicates < 0
                || duplicates > 1) {
            throw new IllegalArgumentException("n, rounds, clients, consumers and prefetch are at least 1, warmup at least"
                    + " 0, duplicates in [0, 1]");
        }
        quietLogging();

        System.out.printf("OnlyOnce message layer: %,d messages per phase, %d warm-up + %d measured rounds, %d producer"
                        + " clients, %d consumers (prefetch %d), %.0f %% duplicates, relay batch %d, %d cores, Java %s%n",
                n, warmup, rounds, clients, consumers, prefetch, duplicates * 100, BATCH,
                Runtime.getRuntime().availableProcessors(), Runtime.version());

        String vhost = "onlyonce-bench-msg-" + UUID.randomUUID().toString().substring(0, 8);
        createDatabase(pgServer);
        Harness.exec(List.of(rabbitmqctl, "add_vhost", vhost));
        List<CachingConnectionFactory> factories = new ArrayList<>();
        HikariDataSource dataSource = null;
        PgWaits waits = null;
        try {
            Harness.exec(List.of(rabbitmqctl, "set_permissions", "-p", vhost, "guest", ".*", ".*", ".*"));
            dataSource = pool(pgServer + DATABASE, clients + consumers + 2);
            prepareSchema(dataSource);
            CachingConnectionFactory confirming = factory(rabbitHost, rabbitPort, vhost);
            confirming.setPublisherConfirmType(ConfirmType.CORRELATED);
            confirming.setPublisherReturns(true);
            factories.add(confirming);
            CachingConnectionFactory consuming = factory(rabbitHost, rabbitPort, vhost);
            factories.add(consuming);
            waits = pgWaits ? PgWaits.start(pgServer + DATABASE) : null;
            MessagingBench bench = new MessagingBench(n, clients, consumers, prefetch, duplicates, dataSource,
                    confirming, consuming, waits);
            bench.measure(sides, warmup, rounds);
        } finally {
            if (waits != null) {
                waits.close();
            }
            factories.forEach(CachingConnectionFactory::destroy);
            if (dataSource != null) {
                dataSource.close();
            }
            Harness.exec(List.of(rabbitmqctl, "delete_vhost", vhost));
            dropDatabase(pgServer);
        }
    }

    private void measure(List<String> sides, int warmup, int rounds) throws Exception {
        boolean producer = sides.contains("producer");
        boolean consumer = sides.contains("consumer");
        Map<String, List<Double>> rates = new LinkedHashMap<>();
        Map<String, List<Double>> commits = new LinkedHashMap<>();
        Map<String, String> notes = new LinkedHashMap<>();
        for (int round = -warmup; round < rounds; round++) {
            boolean measured = round >= 0;
            long roundStart = System.nanoTime();
            boolean reverse = Math.floorMod(round, 2) == 1;
            StringBuilder line = new StringBuilder(measured ? "round " + (round + 1) + ":" : "warm-up:");
            if (producer) {
                List<String> order = reverse ? List.of("c", "b", "a") : List.of("a", "b", "c");
                for (String phase : order) {
                    Result result = switch (phase) {
                        case "a" -> directPublish();
                        case "b" -> outboxAndRelay();
                        default -> businessOnly();
                    };
                    record(measured, rates, commits, notes, "producer " + phase, result);
                    line.append(String.format("  P%s %,.0f/s", phase, result.rate()));
                }
            }
            if (consumer) {
                List<String> order = reverse ? List.of("b", "a") : List.of("a", "b");
                for (String phase : order) {
                    Result result = consume("b".equals(phase));
                    record(measured, rates, commits, notes, "consumer " + phase, result);
                    line.append(String.format("  C%s %,.0f/s", phase, result.rate()));
                }
            }
            System.out.println(line.append(String.format("   (%.0f s)", (System.nanoTime() - roundStart) / 1e9)));
        }
        report(rates, commits, notes, producer, consumer);
        if (waits != null) {
            waits.report();
        }
    }

    private static void record(boolean measured, Map<String, List<Double>> rates, Map<String, List<Double>> commits,
            Map<String, String> notes, String phase, Result result) {
        if (!measured) {
            return;
        }
        rates.computeIfAbsent(phase, k -> new ArrayList<>()).add(result.rate());
        if (result.commitRate() > 0) {
            commits.computeIfAbsent(phase, k -> new ArrayList<>()).add(result.commitRate());
        }
        notes.put(phase, result.note());
    }

    private void report(Map<String, List<Double>> rates, Map<String, List<Double>> commits, Map<String, String> notes,
            boolean producer, boolean consumer) {
        System.out.println();
        if (producer) {
            System.out.printf("%-64s %12s %12s   %s%n", "producer side (medians)", "msgs/s", "tx/s", "last round");
            row("(a) direct publish, confirms per batch of " + BATCH, "producer a", rates, commits, notes);
            row("(b) business tx + outbox row, relay until all confirmed", "producer b", rates, commits, notes);
            row("(c) business tx alone (no outbox)", "producer c", rates, commits, notes);
            System.out.printf("    b/a %s   b/c %s%n", ratios(rates, "producer b", "producer a"),
                    ratios(rates, "producer b", "producer c"));
            System.out.println();
        }
        if (consumer) {
            System.out.printf("%-64s %12s   %s%n", "consumer side (medians)", "deliveries/s", "effect rows, last round");
            System.out.printf("%-64s %12s   %s%n", "(a) plain listener, autocommit insert (at-least-once)",
                    fmt(median(rates.get("consumer a"))), notes.get("consumer a"));
            System.out.printf("%-64s %12s   %s%n", "(b) IdempotentRabbitListener + JDBC inbox", fmt(median(rates.get("consumer b"))),
                    notes.get("consumer b"));
            System.out.printf("    b/a %s%n", ratios(rates, "consumer b", "consumer a"));
        }
        System.out.println("(ratios: median of the per-round ratios, each round's in brackets)");
    }

    private static void row(String label, String phase, Map<String, List<Double>> rates, Map<String, List<Double>> commits,
            Map<String, String> notes) {
        List<Double> commitRates = commits.get(phase);
        System.out.println(String.format("%-64s %12s %12s   %s", label, fmt(median(rates.get(phase))),
                commitRates == null ? "-" : fmt(median(commitRates)), notes.get(phase)).stripTrailing());
    }

    private static String ratios(Map<String, List<Double>> rates, String top, String bottom) {
        List<Double> a = rates.get(top);
        List<Double> b = rates.get(bottom);
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

    /** (a) N messages published on one thread, batch by batch, each batch waiting for its confirms. */
    private Result directPublish() throws Exception {
        List<String> ids = ids("direct", n);
        long channels = channelsOpened.sum();
        phase("producer a");
        long start = System.nanoTime();
        publishConfirmed(produced.exchange(), ids);
        double seconds = (System.nanoTime() - start) / 1e9;
        phaseEnd("producer a", n);
        expectDepthAndPurge(produced.queue(), n);
        return new Result(n / seconds, 0, String.format("%.2f channels opened per message",
                (channelsOpened.sum() - channels) / (double) n));
    }

    /** (b) N business transactions, each with one outbox row; the relay publishes them until all are SUCCESS. */
    private Result outboxAndRelay() throws Exception {
        truncate("bench_orders", "onlyonce_message_log");
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
        OutboxRelay relay = new OutboxRelay(dataSource, JdbcDialect.POSTGRESQL, transport, RelayConfig.ofDefaults(), listener);
        String prefix = "order-" + (++sequence);
        long channels = channelsOpened.sum();
        relay.start();
        double seconds;
        double commitSeconds;
        try {
            phase("producer b");
            long start = System.nanoTime();
            onClients(i -> businessTransaction(prefix + "-" + i, relay));
            commitSeconds = (System.nanoTime() - start) / 1e9;
            if (!sent.await(PHASE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("the relay confirmed " + (n - sent.getCount()) + " of " + n + " messages in "
                        + PHASE_TIMEOUT);
            }
            seconds = (System.nanoTime() - start) / 1e9;
            phaseEnd("producer b", n);
        } finally {
            relay.stop();
        }
        long success = count("SELECT COUNT(*) FROM onlyonce_message_log WHERE status = 'SUCCESS'");
        long orders = count("SELECT COUNT(*) FROM bench_orders");
        if (success != n || orders != n || retried.sum() != 0) {
            throw new IllegalStateException("outbox run: " + orders + " orders, " + success + " SUCCESS rows, "
                    + retried.sum() + " retried, for " + n);
        }
        expectDepthAndPurge(produced.queue(), n);
        RelayStats stats = relay.stats();
        return new Result(n / seconds, n / commitSeconds, String.format("%.1f messages per relay poll, %.2f channels"
                + " opened per message", n / (double) stats.polls(), (channelsOpened.sum() - channels) / (double) n));
    }

    /** (c) the same business transactions without the outbox. */
    private Result businessOnly() throws Exception {
        truncate("bench_orders");
        String prefix = "order-" + (++sequence);
        phase("producer c");
        long start = System.nanoTime();
        onClients(i -> businessTransaction(prefix + "-" + i, null));
        double seconds = (System.nanoTime() - start) / 1e9;
        phaseEnd("producer c", n);
        long orders = count("SELECT COUNT(*) FROM bench_orders");
        if (orders != n) {
            throw new IllegalStateException(orders + " orders for " + n);
        }
        return new Result(n / seconds, n / seconds, "");
    }

    /** One order row, and with a relay one outbox message, in one transaction; the relay is woken after the commit. */
    private void businessTransaction(String orderId, OutboxRelay relay) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement insert = connection.prepareStatement(INSERT_ORDER)) {
                insert.setString(1, orderId);
                insert.setString(2, "phone");
                insert.setInt(3, 1);
                insert.executeUpdate();
            }
            if (relay != null) {
                outbox.record(connection, new OutboxMessage(OutboxMessage.id(orderId, "created"), produced.exchange(),
                        ROUTING_KEY, payload(orderId), Map.of("X-Request-ID", "req-" + orderId)));
            }
            connection.commit();
            connection.setAutoCommit(true);
        }
        if (relay != null) {
            relay.wakeUp();
        }
    }

    @FunctionalInterface
    private interface Work {
        void run(int index) throws Exception;
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

    /** Preloads the delivery stream, then drains it with the plain or the idempotent listener. */
    private Result consume(boolean idempotent) throws Exception {
        truncate("bench_effects", "onlyonce_inbox");
        RabbitTopology topology = idempotent ? inboxQueue : plainQueue;
        String phase = idempotent ? "consumer b" : "consumer a";
        List<String> stream = deliveries("msg-" + (++sequence));
        int deliveries = stream.size();
        int duplicates = deliveries - n;
        preload(topology.exchange(), stream);
        expectDepth(topology.queue(), deliveries);

        SimpleMessageListenerContainer container;
        LongSupplier settled;
        IdempotentRabbitListener inbox = null;
        PlainListener plain = null;
        if (idempotent) {
            MessageHandler effect = (message, connection) -> {
                try (PreparedStatement insert = connection.prepareStatement(INSERT_EFFECT)) {
                    insert.setString(1, message.id());
                    insert.setString(2, message.payload());
                    insert.executeUpdate();
                }
            };
            IdempotentConsumer consumer = new IdempotentConsumer("bench-stock", dataSource, JdbcDialect.POSTGRESQL, effect,
                    ConsumerConfig.ofDefaults());
            IdempotentRabbitListener listener = IdempotentRabbitListener.builder(consumer, template).topology(topology).build();
            inbox = listener;
            container = listener.newContainer(consuming, topology.queue());
            settled = () -> listener.processed() + listener.duplicates() + listener.deadLettered();
        } else {
            PlainListener listener = new PlainListener(dataSource);
            plain = listener;
            container = new SimpleMessageListenerContainer(consuming);
            container.setQueueNames(topology.queue());
            container.setAcknowledgeMode(AcknowledgeMode.MANUAL);
            container.setMessageListener(listener);
            settled = listener.acked::sum;
        }
        container.setConcurrentConsumers(consumers);
        container.setPrefetchCount(prefetch);
        container.setReceiveTimeout(100); // idle consumers notice a stop sooner (default 1 s); busy ones never wait
        double seconds;
        try {
            phase(phase);
            long start = System.nanoTime();
            container.start();
            long deadline = start + PHASE_TIMEOUT.toNanos();
            while (settled.getAsLong() < deliveries) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(phase + ": " + settled.getAsLong() + " of " + deliveries
                            + " deliveries settled in " + PHASE_TIMEOUT);
                }
                Thread.sleep(1);
            }
            seconds = (System.nanoTime() - start) / 1e9;
            phaseEnd(phase, deliveries);
        } finally {
            container.stop();
        }
        expectDepth(topology.queue(), 0);
        long effects = count("SELECT COUNT(*) FROM bench_effects");
        long distinct = count("SELECT COUNT(DISTINCT message_id) FROM bench_effects");
        if (idempotent) {
            long inboxRows = count("SELECT COUNT(*) FROM onlyonce_inbox");
            if (effects != n || distinct != n || inboxRows != n || inbox.processed() != n
                    || inbox.duplicates() != duplicates || inbox.deadLettered() != 0) {
                throw new IllegalStateException("EXACTLY-ONCE VIOLATED: " + effects + " effect rows, " + distinct
                        + " distinct, " + inboxRows + " inbox rows for " + n + " distinct messages and " + duplicates
                        + " duplicates; listener processed " + inbox.processed() + ", duplicates " + inbox.duplicates()
                        + ", dead-lettered " + inbox.deadLettered() + ", requeued " + inbox.requeued());
            }
        } else if (effects != deliveries || distinct != n || plain.failed.sum() != 0) {
            throw new IllegalStateException("plain listener: " + effects + " effect rows, " + distinct + " distinct, "
                    + plain.failed.sum() + " failed, for " + deliveries + " deliveries");
        }
        return new Result(deliveries / seconds, 0, String.format("%,d for %,d distinct (%,d deliveries)", effects, distinct,
                deliveries));
    }

    /** Acks each delivery after one autocommit insert: at-least-once, a duplicate takes effect again. */
    private static final class PlainListener implements ChannelAwareMessageListener {
        final LongAdder acked = new LongAdder();
        final LongAdder failed = new LongAdder();
        private final HikariDataSource dataSource;

        PlainListener(HikariDataSource dataSource) {
            this.dataSource = dataSource;
        }

        @Override
        public void onMessage(Message message, Channel channel) throws Exception {
            long tag = message.getMessageProperties().getDeliveryTag();
            try (Connection connection = dataSource.getConnection();
                    PreparedStatement insert = connection.prepareStatement(INSERT_EFFECT)) {
                insert.setString(1, message.getMessageProperties().getMessageId());
                insert.setString(2, new String(message.getBody(), StandardCharsets.UTF_8));
                insert.executeUpdate();
            } catch (SQLException e) {
                failed.increment();
                channel.basicNack(tag, false, true);
                return;
            }
            channel.basicAck(tag, false);
            acked.increment();
        }
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

    // ---------------------------------------------------------------- RabbitMQ

    /**
     * Publishes {@code ids} as the relay does: one {@code send} with its own correlation per message,
     * in batches of the relay's size, waiting for each batch's routed, acked confirms.
     */
    private void publishConfirmed(String exchange, List<String> ids) throws Exception {
        for (int from = 0; from < ids.size(); from += BATCH) {
            List<CorrelationData> batch = new ArrayList<>(BATCH);
            for (String id : ids.subList(from, Math.min(ids.size(), from + BATCH))) {
                CorrelationData correlation = new CorrelationData(id + "#" + (++sequence));
                template.send(exchange, ROUTING_KEY, amqp(id), correlation);
                batch.add(correlation);
            }
            awaitConfirms(batch);
        }
    }

    /** Fills a queue before a consumer phase (not measured): each batch on one channel, then its confirms. */
    private void preload(String exchange, List<String> ids) throws Exception {
        for (int from = 0; from < ids.size(); from += BATCH) {
            List<String> slice = ids.subList(from, Math.min(ids.size(), from + BATCH));
            List<CorrelationData> batch = new ArrayList<>(BATCH);
            template.invoke(operations -> {
                for (String id : slice) {
                    CorrelationData correlation = new CorrelationData(id + "#" + (++sequence));
                    operations.send(exchange, ROUTING_KEY, amqp(id), correlation);
                    batch.add(correlation);
                }
                return null;
            });
            awaitConfirms(batch);
        }
    }

    private static void awaitConfirms(List<CorrelationData> batch) throws Exception {
        for (CorrelationData correlation : batch) {
            CorrelationData.Confirm confirm = correlation.getFuture().get(PHASE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (!confirm.ack() || correlation.getReturned() != null) {
                throw new IllegalStateException("publish of " + correlation.getId() + " not confirmed: " + confirm
                        + ", returned " + correlation.getReturned());
            }
        }
    }

    /** The message the outbox transport would send for {@code id}: message id, JSON, persistent, X-Request-ID. */
    private static Message amqp(String id) {
        MessageProperties properties = new MessageProperties();
        properties.setMessageId(id);
        properties.setContentType(MessageProperties.CONTENT_TYPE_JSON);
        properties.setContentEncoding(StandardCharsets.UTF_8.name());
        properties.setDeliveryMode(MessageDeliveryMode.PERSISTENT);
        properties.setHeader("X-Request-ID", "req-" + id);
        return new Message(payload(id).getBytes(StandardCharsets.UTF_8), properties);
    }

    private static String payload(String id) {
        return "{\"order\":\"" + id + "\",\"item\":\"phone\",\"quantity\":1}";
    }

    private void expectDepth(String queue, long expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long depth;
        while ((depth = depth(queue)) != expected) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("queue " + queue + " holds " + depth + " messages, expected " + expected);
            }
            Thread.sleep(20);
        }
    }

    private void expectDepthAndPurge(String queue, long expected) throws InterruptedException {
        expectDepth(queue, expected);
        admin.purgeQueue(queue, false);
    }

    private long depth(String queue) {
        var info = admin.getQueueInfo(queue);
        return info == null ? -1 : info.getMessageCount();
    }

    private static CachingConnectionFactory factory(String host, int port, String vhost) {
        CachingConnectionFactory factory = new CachingConnectionFactory(host, port);
        factory.setUsername("guest");
        factory.setPassword("guest");
        factory.setVirtualHost(vhost);
        factory.setConnectionTimeout(5_000);
        return factory;
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
     * @param rate messages (producer) or deliveries (consumer) per second, until the last one was done
     * @param commitRate producer (b) and (c): business transactions committed per second
     * @param note what the phase left behind
     */
    private record Result(double rate, double commitRate, String note) {
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
