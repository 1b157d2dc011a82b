package io.onlyonce.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.jdbc.JdbcIdempotencyStore;
import io.onlyonce.jdbc.JdbcSchema;
import io.onlyonce.memory.InMemoryIdempotencyStore;
import io.onlyonce.redis.RedisIdempotencyStore;
import io.onlyonce.redis.RedisStoreConfig;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Claim+complete cycles per second of each idempotency store at N concurrent clients, next to the
 * raw server limit for the same work measured in the same run: redis-benchmark running equivalent
 * Lua scripts with EVALSHA (claim, then complete with a 200-byte response) and pgbench running
 * {@code INSERT ... ON CONFLICT DO NOTHING} + {@code UPDATE}. Prints the ratio store / raw.
 *
 * <pre>bench/run.sh StoreThroughputBench [--seconds=10] [--warmup=3] [--clients=50] [--stores=memory,redis,redis-cluster,postgres,mariadb,h2]</pre>
 */
public final class StoreThroughputBench {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration RETENTION = Duration.ofMinutes(1);
    private static final StoredResponse RESPONSE = StoredResponse.of(201, new byte[200]);

    /** Equivalent of the claim script: read the key, write an IN_PROGRESS value with a TTL. */
    private static final String RAW_CLAIM = "local v = redis.call('GET', KEYS[1]) "
            + "if v then return {v, redis.call('PTTL', KEYS[1])} end "
            + "redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return {}";
    /** Equivalent of the complete script: read and check the holder, write the completed value. */
    private static final String RAW_COMPLETE = "local v = redis.call('GET', KEYS[1]) "
            + "if v and string.sub(v, 2, 23) ~= ARGV[1] then return 0 end "
            + "redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) return 1";

    private StoreThroughputBench() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = Harness.args(args);
        int seconds = Harness.option(options, "seconds", 10);
        int warmup = Harness.option(options, "warmup", 3);
        int clients = Harness.option(options, "clients", 50);
        List<String> stores = List.of(options.getOrDefault("stores", "memory,redis,redis-cluster,postgres,mariadb,h2").split(","));
        String redisUri = Harness.env("ONLYONCE_REDIS_URI", "redis://127.0.0.1:6379");
        String clusterUri = Harness.env("ONLYONCE_REDIS_CLUSTER_URI", "redis://127.0.0.1:7101");

        System.out.printf("OnlyOnce store throughput: %d clients, %d s warm-up, %d s measured, %d cores, Java %s%n",
                clients, warmup, seconds, Runtime.getRuntime().availableProcessors(), Runtime.version());
        List<String[]> rows = new ArrayList<>();

        Double rawRedis = null;
        if (stores.contains("redis") || stores.contains("redis-cluster")) {
            rawRedis = rawRedis(redisUri, clients, seconds);
            rows.add(new String[] {"raw Redis (redis-benchmark, 2 scripts)", fmt(rawRedis), "1.00"});
        }
        Double rawPostgres = null;
        if (stores.contains("postgres")) {
            rawPostgres = rawPostgres(clients, seconds);
            rows.add(new String[] {"raw PostgreSQL (pgbench, 2 statements)", fmt(rawPostgres), "1.00"});
        }
        for (String name : stores) {
            double rate;
            Double raw = null;
            switch (name) {
                case "memory" -> rate = run(new InMemoryIdempotencyStore(), clients, warmup, seconds);
                case "redis" -> {
                    RedisClient client = RedisClient.create(redisUri);
                    String prefix = prefix();
                    try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
                        rate = run(RedisIdempotencyStore.standalone(connection, new RedisStoreConfig(prefix, 256)), clients, warmup, seconds);
                    } finally {
                        client.shutdown();
                        unlink(RedisURI.create(redisUri), prefix);
                    }
                    raw = rawRedis;
                }
                case "redis-cluster" -> {
                    RedisClusterClient client = RedisClusterClient.create(RedisURI.create(clusterUri));
                    String prefix = prefix();
                    try (StatefulRedisClusterConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
                        rate = run(RedisIdempotencyStore.cluster(connection, new RedisStoreConfig(prefix, 256)), clients, warmup, seconds);
                        for (var node : connection.getPartitions()) {
                            unlink(node.getUri(), prefix);
                        }
                    } finally {
                        client.shutdown();
                    }
                }
                case "postgres" -> {
                    rate = jdbc("jdbc:postgresql://127.0.0.1:5432/", "postgres", "", "oo_bench_store", clients, warmup, seconds);
                    raw = rawPostgres;
                }
                case "mariadb" -> rate = jdbc("jdbc:mariadb://127.0.0.1:3306/", "root", "", "oo_bench_store", clients, warmup, seconds);
                case "h2" -> {
                    HikariDataSource ds = pool("jdbc:h2:mem:bench;DB_CLOSE_DELAY=-1", "sa", "", clients);
                    try (ds) {
                        JdbcSchema.apply(ds, JdbcDialect.H2);
                        rate = run(new JdbcIdempotencyStore(ds, JdbcDialect.H2), clients, warmup, seconds);
                    }
                }
                default -> throw new IllegalArgumentException("unknown store " + name);
            }
            rows.add(new String[] {"OnlyOnce " + name, fmt(rate), raw == null ? "-" : String.format("%.2f", rate / raw)});
        }
        System.out.println();
        System.out.printf("%-42s %16s %10s%n", "store", "cycles/s", "vs raw");
        for (String[] row : rows) {
            System.out.printf("%-42s %16s %10s%n", row[0], row[1], row[2]);
        }
    }

    private static String prefix() {
        return "oo-bench-" + UUID.randomUUID().toString().substring(0, 8) + ":";
    }

    private static String fmt(double rate) {
        return String.format("%,.0f", rate);
    }

    /** One cycle: claim a fresh key, complete it with a 200-byte response. */
    static double run(IdempotencyStore store, int clients, int warmup, int seconds) throws InterruptedException {
        String run = UUID.randomUUID().toString().substring(0, 8);
        Fingerprint fingerprint = Fingerprint.of("POST", "/orders", "{}");
        return Harness.throughput(clients, warmup, seconds, (client, sequence) -> {
            IdempotencyKey key = new IdempotencyKey("bench", run + "-" + client + "-" + sequence);
            ClaimResult claim = store.claim(key, fingerprint, LEASE);
            if (!(claim instanceof ClaimResult.Claimed claimed)) {
                throw new IllegalStateException("fresh key not claimed");
            }
            if (!store.complete(key, claimed.owner(), RESPONSE, RETENTION)) {
                throw new IllegalStateException("complete refused");
            }
        });
    }

    private static HikariDataSource pool(String url, String user, String password, int clients) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(clients);
        config.setMinimumIdle(clients);
        return new HikariDataSource(config);
    }

    private static double jdbc(String serverUrl, String user, String password, String database, int clients,
            int warmup, int seconds) throws Exception {
        boolean postgres = serverUrl.startsWith("jdbc:postgresql");
        String admin = serverUrl + (postgres ? "postgres" : "test");
        try (Connection c = DriverManager.getConnection(admin, user, password); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database);
            s.execute("CREATE DATABASE " + database);
        }
        try (HikariDataSource ds = pool(serverUrl + database, user, password, clients)) {
            JdbcDialect dialect = postgres ? JdbcDialect.POSTGRESQL : JdbcDialect.MYSQL;
            JdbcSchema.apply(ds, dialect);
            return run(new JdbcIdempotencyStore(ds, dialect), clients, warmup, seconds);
        } finally {
            try (Connection c = DriverManager.getConnection(admin, user, password); Statement s = c.createStatement()) {
                s.execute("DROP DATABASE IF EXISTS " + database);
            }
        }
    }

    /** Cycles/s the server sustains for the two scripts alone: 1 / (1/claim + 1/complete). */
    private static double rawRedis(String uri, int clients, int seconds) throws Exception {
        RedisURI parsed = RedisURI.create(uri);
        String host = parsed.getHost();
        String port = Integer.toString(parsed.getPort());
        String inProgress = "R" + "o".repeat(22) + "f".repeat(32);
        String completed = "D" + "o".repeat(22) + "f".repeat(32) + "r".repeat(215);
        int requests = Math.max(100_000, 20_000 * seconds);
        double claim = redisBenchmark(host, port, clients, requests, RAW_CLAIM, inProgress, "30000");
        double complete = redisBenchmark(host, port, clients, requests, RAW_COMPLETE, "o".repeat(22), completed, "60000");
        unlink(parsed, "oo-raw:");
        return 1 / (1 / claim + 1 / complete);
    }

    /** Deletes the keys a run left behind on one server. */
    private static void unlink(RedisURI server, String prefix) throws Exception {
        String cli = "redis-cli -h " + server.getHost() + " -p " + server.getPort();
        Harness.exec(List.of("sh", "-c", cli + " --scan --pattern '" + prefix + "*' | xargs -r -n 1000 " + cli + " unlink > /dev/null"));
    }

    /** Loads {@code script} (SCRIPT LOAD) and runs it with EVALSHA, as the store does. */
    private static double redisBenchmark(String host, String port, int clients, int requests, String script, String... args)
            throws Exception {
        String sha = Harness.exec(List.of("redis-cli", "-h", host, "-p", port, "SCRIPT", "LOAD", script)).trim();
        List<String> command = new ArrayList<>(List.of("redis-benchmark", "-h", host, "-p", port, "-c", Integer.toString(clients),
                "-n", Integer.toString(requests), "-r", "100000000", "-q", "EVALSHA", sha, "1", "oo-raw:__rand_int__"));
        command.addAll(List.of(args));
        String output = Harness.exec(command);
        return Harness.number(output, "([0-9.]+) requests per second");
    }

    /** Transactions/s of pgbench: one INSERT ... ON CONFLICT DO NOTHING and one UPDATE per transaction. */
    private static double rawPostgres(int clients, int seconds) throws Exception {
        String database = "oo_bench_raw";
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", "");
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database);
            s.execute("CREATE DATABASE " + database);
        }
        try {
            try (HikariDataSource ds = pool("jdbc:postgresql://127.0.0.1:5432/" + database, "postgres", "", 1)) {
                JdbcSchema.apply(ds, JdbcDialect.POSTGRESQL);
            }
            Path script = Files.createTempFile("oo-pgbench", ".sql");
            Files.writeString(script, """
                    \\set k random(1, 1000000000000)
                    INSERT INTO onlyonce_idempotency (scope, idem_key, status, fingerprint, owner, expires_at_ms, created_at_ms) VALUES ('bench', 'raw-' || :k || '-' || :client_id, 'P', repeat('f', 64), 'oooooooooooooooooooooo', 9999999999999, 0) ON CONFLICT DO NOTHING;
                    UPDATE onlyonce_idempotency SET status = 'C', expires_at_ms = 9999999999999, response_status = 201, response_headers = '', response_body = decode(repeat('00', 200), 'hex') WHERE scope = 'bench' AND idem_key = 'raw-' || :k || '-' || :client_id AND status = 'P' AND owner = 'oooooooooooooooooooooo' AND expires_at_ms > 0;
                    """);
            String output = Harness.exec(List.of("pgbench", "-h", "127.0.0.1", "-U", "postgres", "-n", "-c", Integer.toString(clients),
                    "-j", "2", "-T", Integer.toString(seconds), "-f", script.toString(), database));
            Files.delete(script);
            return Harness.number(output, "tps = ([0-9.]+)");
        } finally {
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", "");
                    Statement s = c.createStatement()) {
                s.execute("DROP DATABASE IF EXISTS " + database);
            }
        }
    }
}
