package io.onlyonce.example.seckill.fastpath;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.onlyonce.example.seckill.support.Api;
import io.onlyonce.example.seckill.support.ExternalDatabases;
import io.onlyonce.example.seckill.support.ServiceProcess;
import io.onlyonce.example.seckill.support.TestSecrets;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The fast path's invariants as users meet them: the service (the packaged jar, in a process of its
 * own, on PostgreSQL or MariaDB, and Redis) sells a flash sale of 1,000 units to 5,000 users making 20,000
 * purchase attempts at once (a subclass may scale this down), 30 % of them duplicates (the same
 * one-time token sent again, or the same user buying again with a new token). A client whose
 * request got no answer (connection refused, 503) sends it again, as a real one does. A subclass
 * may break something while the attempts run ({@link #disrupt}). After the queue drains: no
 * oversell, no user with two live orders, every 202's reservation ORDERED or FAILED with a reason,
 * the Redis stock equal to the database's.
 */
abstract class AbstractFastPathScenario {

    static final int FULL_USERS = 5_000;
    static final int FULL_STOCK = 1_000;
    static final int FULL_ATTEMPTS = 20_000;
    static final int THREADS = 48;
    static final long ACTIVITY = 1;

    /**
     * The share of the full run (5,000 users, stock 1,000, 20,000 attempts) this scenario makes: 0.4
     * in the test command (2,000 buyers over 400 units is already 20 buyers per unit), the full run
     * and more under load in {@code bench/seckill-load.sh}.
     */
    protected double scale() {
        return 0.4;
    }

    /** The Redis the service uses. */
    protected abstract int redisPort();

    /** Whether the service runs on MariaDB instead of PostgreSQL. */
    protected boolean onMariaDb() {
        return false;
    }

    /** Arguments the service gets on top of the scenario's. */
    protected List<String> moreArguments() {
        return List.of();
    }

    /** Runs once the service is stopped, before its database is dropped (stop what else used it). */
    protected void afterService() throws Exception {
    }

    /** The service's arguments, as the scenario started it (for a second instance on the same data). */
    protected final List<String> arguments() {
        return List.copyOf(arguments);
    }

    private final List<String> arguments = new ArrayList<>();

    /** Something broken while the purchases run, once half the stock is reserved. */
    protected abstract void disrupt(ServiceProcess service) throws Exception;

    /** A name for the log file. */
    protected abstract String name();

    /** Whether every unit must be sold: true unless the disruption may leave units nobody asked for afterwards. */
    protected boolean sellsEverything() {
        return true;
    }

    /** Whether no reservation may be lost (Redis kept everything it acknowledged). */
    protected boolean losesNothing() {
        return true;
    }

    record Intent(Api.Session buyer, int number) {
    }

    @Test
    void everyUnitSoldOnceEveryReservationDecidedRedisEqualsTheDatabase() throws Exception {
        final int USERS = (int) (FULL_USERS * scale());
        final int STOCK = (int) (FULL_STOCK * scale());
        final int ATTEMPTS = (int) (FULL_ATTEMPTS * scale());
        String database = ExternalDatabases.newName();
        String url = onMariaDb() ? ExternalDatabases.createMysql(database) : ExternalDatabases.createPostgres(database);
        String user = onMariaDb() ? ExternalDatabases.mysqlUser() : ExternalDatabases.postgresUser();
        String password = onMariaDb() ? ExternalDatabases.mysqlPassword() : ExternalDatabases.postgresPassword();
        String prefix = "seckill-fast-it:" + database + ":";
        arguments.clear();
        arguments.addAll(TestSecrets.args());
        arguments.addAll(List.of("--spring.profiles.active=" + (onMariaDb() ? "mysql" : "postgres") + ",redis",
                "--spring.datasource.url=" + url,
                "--spring.datasource.username=" + user,
                "--spring.datasource.password=" + password,
                "--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redisPort(),
                "--onlyonce.redis.key-prefix=" + prefix, "--seckill.fast-path.key-prefix=" + prefix + "fast:",
                "--seckill.fast-path.claim-idle=3s", "--seckill.fast-path.reconcile-interval=1s",
                "--seckill.demo-data.flash-sale-stock=" + STOCK, "--seckill.limits.enabled=false",
                "--onlyonce.dedup.enabled=false", "--logging.level.root=WARN",
                "--logging.level.io.onlyonce.example.seckill.fastpath=INFO"));
        arguments.addAll(moreArguments());
        long began = System.nanoTime();
        try (ServiceProcess service = ServiceProcess.of(name(), arguments, Map.of())) {
            service.start();
            System.out.printf("%s: started in %d ms%n", name(), (System.nanoTime() - began) / 1_000_000);
            Api api = new Api(service.port());
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            try {
                List<Api.Session> users = all(pool, java.util.stream.IntStream.range(0, USERS)
                        .mapToObj(i -> (java.util.concurrent.Callable<Api.Session>) () -> api.login("fp" + database.hashCode() + "u" + i))
                        .toList());

                // 14,000 purchase intents (each user two or three), 6,000 of them sent twice
                List<Intent> intents = new ArrayList<>();
                for (int i = 0; i < USERS; i++) {
                    for (int n = 0; n < (i < ATTEMPTS * 7 / 10 - 2 * USERS ? 3 : 2); n++) {
                        intents.add(new Intent(users.get(i), n));
                    }
                }
                List<Intent> attempts = new ArrayList<>(intents);
                Random random = new Random(7);
                for (int i = 0; attempts.size() < ATTEMPTS; i++) {
                    attempts.add(intents.get(random.nextInt(intents.size())));
                }
                Collections.shuffle(attempts, random);
                assertThat(attempts).hasSize(ATTEMPTS);
                System.out.printf("%s: %d users logged in at %d ms%n", name(), USERS, (System.nanoTime() - began) / 1_000_000);

                Map<Intent, String> tokens = new ConcurrentHashMap<>();
                Map<String, Api.Session> reservations = new ConcurrentHashMap<>();
                Map<String, AtomicInteger> answers = new ConcurrentHashMap<>();
                Set<String> ordersSeen = ConcurrentHashMap.newKeySet();
                AtomicInteger answered = new AtomicInteger();
                ConcurrentLinkedQueue<Intent> queue = new ConcurrentLinkedQueue<>(attempts);
                List<Future<?>> buyers = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    buyers.add(pool.submit(() -> {
                        Intent intent;
                        while ((intent = queue.poll()) != null) {
                            String outcome = purchase(api, intent, tokens, reservations, ordersSeen);
                            answers.computeIfAbsent(outcome, k -> new AtomicInteger()).incrementAndGet();
                            answered.incrementAndGet();
                        }
                        return null;
                    }));
                }
                // mid-sale: half the stock reserved
                await().atMost(Duration.ofMinutes(5)).until(() -> reservations.size() >= STOCK / 2 || queue.isEmpty());
                disrupt(service);
                for (Future<?> buyer : buyers) {
                    buyer.get(10, TimeUnit.MINUTES);
                }
                assertThat(answered.get()).isEqualTo(ATTEMPTS);
                System.out.printf("%s: %d attempts answered at %d ms%n", name(), ATTEMPTS, (System.nanoTime() - began) / 1_000_000);
                assertThat(answers.keySet()).as("answers %s", answers).isSubsetOf(Set.of("reserved", "sold-out", "has-order"));

                // every reservation ends ORDERED or FAILED with a reason
                Map<String, String> ends = new ConcurrentHashMap<>();
                await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).until(() -> {
                    for (Map.Entry<String, Api.Session> r : reservations.entrySet()) {
                        if (!ends.containsKey(r.getKey())) {
                            Api.Response status = retrying(() -> api.get("/api/seckill/reservations/" + r.getKey(),
                                    r.getValue()));
                            assertThat(status.status()).as(status.toString()).isEqualTo(200);
                            String state = status.text("status");
                            if (state.equals("ORDERED")) {
                                ends.put(r.getKey(), "ORDERED " + status.text("orderNo"));
                            } else if (state.equals("FAILED")) {
                                assertThat(status.text("reason")).as(status.toString()).isNotBlank();
                                ends.put(r.getKey(), "FAILED " + status.text("reason"));
                            }
                        }
                    }
                    return ends.size() == reservations.size();
                });

                Map<String, Long> endings = new java.util.TreeMap<>();
                ends.values().forEach(e -> endings.merge(e.startsWith("ORDERED") ? "ORDERED" : e, 1L, Long::sum));
                System.out.printf("%s: answers %s; reservations %d: %s, all decided at %d ms%n", name(), answers,
                        reservations.size(), endings, (System.nanoTime() - began) / 1_000_000);
                try (Connection db = DriverManager.getConnection(url, user, password);
                        RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", redisPort()));
                        StatefulRedisConnection<String, String> redis = client.connect()) {
                    String stockKey = prefix + "fast:{a" + ACTIVITY + "}:stock";
                    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500)).until(() ->
                            String.valueOf(count(db, "SELECT stock FROM seckill_stock WHERE activity_id = 1"))
                                    .equals(redis.sync().hget(stockKey, "1")));
                    long orders = count(db, "SELECT COUNT(*) FROM orders WHERE activity_id = 1 AND status <> 'CANCELLED'");
                    long left = count(db, "SELECT stock FROM seckill_stock WHERE activity_id = 1");
                    assertThat(orders + left).as("sold + left = initial: nothing oversold, nothing lost").isEqualTo(STOCK);
                    if (sellsEverything()) {
                        assertThat(orders).isEqualTo(STOCK);
                        assertThat(left).isZero();
                        assertThat(redis.sync().hget(stockKey, "1")).isEqualTo("0");
                    }
                    assertThat(count(db, "SELECT COUNT(*) FROM (SELECT user_id FROM orders WHERE activity_id = 1 "
                            + "AND status <> 'CANCELLED' GROUP BY user_id HAVING COUNT(*) > 1) twice")).isZero();
                    ends.values().stream().filter(e -> e.startsWith("ORDERED ")).forEach(e -> ordersSeen.add(e.substring(8)));
                    assertThat(ordersSeen).as("every order is one a buyer was told of").hasSize((int) orders);
                    assertThat(count(db, "SELECT COUNT(*) FROM seckill_reservations WHERE status = 'ORDERED'")).isEqualTo(orders);
                    assertThat(redis.sync().xlen(prefix + "fast:{a" + ACTIVITY + "}:queue")).isZero();
                    if (losesNothing()) {
                        assertThat(endings).doesNotContainKey("FAILED reservation-lost");
                    }
                }
            } finally {
                pool.shutdownNow();
            }
        } finally {
            afterService();
            if (onMariaDb()) {
                ExternalDatabases.dropMysql(database);
            } else {
                ExternalDatabases.dropPostgres(database);
            }
        }
    }

    /**
     * One purchase attempt, retried as a client does until it gets an answer: "reserved" (202, the
     * reservation recorded), "sold-out" or "has-order" (the buyer's earlier reservation is their order).
     */
    private static String purchase(Api api, Intent intent, Map<Intent, String> tokens, Map<String, Api.Session> reservations,
            Set<String> ordersSeen) {
        while (true) {
            String token = tokens.computeIfAbsent(intent, i -> retrying(() -> {
                Api.Response issued = api.post("/api/seckill/activities/" + ACTIVITY + "/tokens", i.buyer(), null);
                return issued.status() == 201 ? issued : null;
            }).text("token"));
            Api.Response response = retrying(() -> api.seckill(intent.buyer(), ACTIVITY, token));
            if (response.status() == 202) {
                reservations.put(response.text("reservationId"), intent.buyer());
                return "reserved";
            }
            String problem = response.problem();
            if (problem.equals("sold-out")) {
                return "sold-out";
            }
            if (problem.equals("live-order-exists")) {
                // the buyer's earlier reservation is their order (also one whose 202 was lost when the service died)
                ordersSeen.add(response.text("orderNo"));
                return "has-order";
            }
            if (problem.equals("duplicate-submission")) {
                // this token was used: by this same attempt before the connection broke (the service
                // died after taking it) or by the duplicate sent a moment ago; buy again with a new
                // one, which answers the buyer's reservation if there is one
                tokens.remove(intent, token);
                continue;
            }
            throw new AssertionError("unexpected answer " + response);
        }
    }

    /** {@code call}, until the service answers it (not a refused connection, not a 5xx, not "still running"). */
    private static Api.Response retrying(java.util.function.Supplier<Api.Response> call) {
        while (true) {
            try {
                Api.Response response = call.get();
                if (response != null && response.status() < 500 && !response.problem().equals("idempotency-request-in-progress")) {
                    return response;
                }
            } catch (UncheckedIOException | IllegalStateException serviceDown) {
                // refused or reset: the service is down or restarting
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    private static <T> List<T> all(ExecutorService pool, List<java.util.concurrent.Callable<T>> calls) throws Exception {
        List<T> results = new ArrayList<>();
        for (Future<T> f : pool.invokeAll(calls)) {
            results.add(f.get());
        }
        return results;
    }

    static long count(Connection db, String query) throws Exception {
        try (Statement sql = db.createStatement(); ResultSet row = sql.executeQuery(query)) {
            row.next();
            return row.getLong(1);
        }
    }
}
