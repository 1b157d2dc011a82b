package io.onlyonce.example.seckill.bench;

import io.onlyonce.example.seckill.SeckillApplication;
import io.onlyonce.example.seckill.support.Api;
import io.onlyonce.example.seckill.support.Api.Response;
import io.onlyonce.example.seckill.support.Api.Session;
import io.onlyonce.example.seckill.support.ExternalDatabases;
import io.onlyonce.example.seckill.support.Redis;
import io.onlyonce.example.seckill.support.Rows;
import io.onlyonce.example.seckill.support.TestSecrets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The flash-sale load bench: prints, never asserts. Starts the service twice on PostgreSQL and
 * Redis (the {@code postgres} and {@code redis} profiles, a database and key prefix of its own),
 * once with every OnlyOnce layer and once without ({@code seckill.onlyonce.enabled=false},
 * {@code onlyonce.dedup.enabled=false}: only the data layer left), and drives the same load
 * through each: {@code bench.clients} concurrent clients (200), {@code bench.attempts} purchases
 * (4000), each by a new user (login → token → order), {@code bench.duplicates} of them (0.3) sent
 * twice at once with the same token. Stock covers every purchase, so every original can succeed.
 *
 * <pre>cd examples/seckill && mvn test -Dtest=FlashSaleBench -Dbench.excluded=none</pre>
 */
@Tag("bench")
class FlashSaleBench {

    private static final int CLIENTS = Integer.getInteger("bench.clients", 200);
    private static final int ATTEMPTS = Integer.getInteger("bench.attempts", 4000);
    private static final double DUPLICATES = Double.parseDouble(System.getProperty("bench.duplicates", "0.3"));

    /** What one run measured. */
    record Result(String mode, long wallMillis, int created, int duplicatesSent, Map<String, Integer> rejections,
            List<Long> orderLatencies, Map<String, Map<String, Long>> layers, long rows, int stockLeft) {
    }

    @Test
    void protectedVersusDataLayerOnly() throws Exception {
        String run = Long.toString(System.nanoTime() % 100_000, 36);
        Result warmup = run("warm-up", run + "w", true, Math.min(ATTEMPTS, 400));
        Result guarded = run("all layers", run + "g", true, ATTEMPTS);
        Result baseline = run("data layer only", run + "b", false, ATTEMPTS);
        System.out.println();
        System.out.printf("flash-sale bench: %d clients, %d purchases, %.0f%% sent twice at once (warm-up of %d not shown)%n",
                CLIENTS, ATTEMPTS, DUPLICATES * 100, warmup.created());
        System.out.printf("%-16s %10s %12s %10s %10s %10s %8s%n", "mode", "orders", "orders/s", "p50 ms", "p99 ms", "rows", "oversold");
        for (Result r : List.of(guarded, baseline)) {
            System.out.printf("%-16s %10d %12.1f %10.1f %10.1f %10d %8s%n", r.mode(), r.created(),
                    r.created() * 1000.0 / r.wallMillis(), percentile(r.orderLatencies(), 50), percentile(r.orderLatencies(), 99),
                    r.rows(), r.rows() > ATTEMPTS || r.stockLeft() < 0 ? "YES" : "no");
        }
        System.out.printf("ratio orders/s (all layers / data layer only): %.2f%n",
                (guarded.created() * 1000.0 / guarded.wallMillis()) / (baseline.created() * 1000.0 / baseline.wallMillis()));
        for (Result r : List.of(guarded, baseline)) {
            System.out.printf("%s: %d duplicates sent; answers to them and other refusals: %s%n", r.mode(), r.duplicatesSent(),
                    r.rejections());
            System.out.printf("%s: per layer (service counters): %s%n", r.mode(), r.layers());
        }
    }

    private Result run(String mode, String run, boolean layers, int attempts) throws Exception {
        String database = ExternalDatabases.newName();
        String prefix = Redis.newPrefix();
        String url = ExternalDatabases.createPostgres(database);
        List<String> args = new ArrayList<>(List.of("--server.port=0", "--spring.profiles.active=postgres,redis",
                "--spring.datasource.url=" + url,
                "--spring.datasource.username=" + ExternalDatabases.postgresUser(),
                "--spring.datasource.password=" + ExternalDatabases.postgresPassword(),
                "--spring.datasource.hikari.maximum-pool-size=20",
                "--server.tomcat.threads.max=" + (CLIENTS + 50),
                "--spring.data.redis.host=" + Redis.sharedHost(), "--spring.data.redis.port=" + Redis.sharedPort(),
                "--onlyonce.redis.key-prefix=" + prefix, "--seckill.order.sweeper-enabled=false",
                "--logging.level.root=WARN"));
        args.addAll(TestSecrets.args());
        if (!layers) {
            args.add("--seckill.onlyonce.enabled=false");
            args.add("--onlyonce.dedup.enabled=false");
            args.add("--seckill.limits.enabled=false");
        }
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SeckillApplication.class)
                .run(args.toArray(String[]::new))) {
            JdbcClient jdbc = context.getBean(JdbcClient.class);
            Rows rows = new Rows(jdbc, context.getBean(Clock.class));
            long product = rows.createProduct("999.00", 0);
            long activity = rows.createActivity(product, "99.00", attempts);
            Api api = new Api(Integer.parseInt(context.getEnvironment().getProperty("local.server.port")));
            ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
            Map<String, Integer> rejections = new ConcurrentHashMap<>();
            LongAdder created = new LongAdder();
            AtomicInteger duplicates = new AtomicInteger();
            AtomicInteger next = new AtomicInteger();
            ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
            ExecutorService copies = Executors.newCachedThreadPool();
            long start = System.nanoTime();
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                running.add(clients.submit(() -> {
                    for (int i = next.getAndIncrement(); i < attempts; i = next.getAndIncrement()) {
                        Session user = api.login("b" + run + "-" + i);
                        String token = api.token(user, activity);
                        int sends = ThreadLocalRandom.current().nextDouble() < DUPLICATES ? 2 : 1;
                        duplicates.addAndGet(sends - 1);
                        List<CompletableFuture<Response>> answers = new ArrayList<>();
                        for (int s = 0; s < sends; s++) {
                            answers.add(CompletableFuture.supplyAsync(() -> {
                                long t0 = System.nanoTime();
                                Response response = api.seckill(user, activity, token);
                                latencies.add(System.nanoTime() - t0);
                                return response;
                            }, copies));
                        }
                        for (CompletableFuture<Response> answer : answers) {
                            Response response = answer.join();
                            if (response.status() == 201) {
                                created.increment();
                            } else {
                                rejections.merge(response.status() + " " + response.problem(), 1, Integer::sum);
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get();
            }
            long wall = (System.nanoTime() - start) / 1_000_000;
            clients.shutdown();
            copies.shutdown();
            clients.awaitTermination(10, TimeUnit.SECONDS);
            Map<String, Map<String, Long>> perLayer = new TreeMap<>(
                    context.getBean(io.onlyonce.spring.metrics.OnlyOnceStatistics.class).byLayer());
            long stored = rows.count("SELECT COUNT(*) FROM orders WHERE activity_id = ?", activity);
            int left = rows.seckillStock(activity);
            return new Result(mode, wall, created.intValue(), duplicates.get(), new TreeMap<>(rejections),
                    new ArrayList<>(latencies), perLayer, stored, left);
        } finally {
            ExternalDatabases.dropPostgres(database);
            Redis.deleteKeys(prefix);
        }
    }

    private static double percentile(List<Long> nanos, int percentile) {
        if (nanos.isEmpty()) {
            return 0;
        }
        List<Long> sorted = new ArrayList<>(nanos);
        Collections.sort(sorted);
        int index = (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, index)) / 1_000_000.0;
    }
}
