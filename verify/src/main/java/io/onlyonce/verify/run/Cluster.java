package io.onlyonce.verify.run;

import io.onlyonce.verify.nemesis.FaultKind;
import io.onlyonce.verify.topology.JavaService;
import io.onlyonce.verify.topology.LossyProxy;
import io.onlyonce.verify.topology.Ports;
import io.onlyonce.verify.topology.PrivatePostgres;
import io.onlyonce.verify.topology.PrivateRabbit;
import io.onlyonce.verify.topology.PrivateRedis;
import io.onlyonce.verify.topology.TcpProxy;
import io.onlyonce.verify.workload.Workload;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The system under test on loopback: a private Redis (reached by the instances through a TCP proxy
 * the nemesis can cut), a private PostgreSQL, a private RabbitMQ node, two seckill instances, the
 * seckill gateway in front of them, and the lossy proxy in front of the gateway.
 */
public final class Cluster implements AutoCloseable {

    /** The idempotency records' lease the instances run with: a paused instance outlives it. */
    public static final Duration LEASE = Duration.ofSeconds(8);
    /** How far ahead the skewed instance's clock runs. */
    public static final Duration SKEW = Duration.ofMinutes(5);
    static final String DATABASE = "seckill";
    static final String PREFIX = "oo:verify:";

    private final Options options;
    private final Path servers;
    private final Path logs;
    private final String jwtSecret = secret();
    private final String paymentSecret = secret();
    private final String tokenSecret = secret();
    private final List<AutoCloseable> started = new ArrayList<>();

    private PrivateRedis redis;
    private TcpProxy redisProxy;
    private PrivatePostgres postgres;
    private PrivateRabbit rabbit;
    private JavaService seckill1;
    private JavaService seckill2;
    private JavaService gateway;
    private JavaService skewed;
    private TcpProxy secondFront;
    private LossyProxy lossy;

    public Cluster(Options options) {
        this.options = options;
        this.servers = options.out().resolve("servers");
        this.logs = options.out().resolve("logs");
    }

    /** Starts everything, one after the other; throws when a part does not come up. */
    public void start() throws Exception {
        // a run starts from empty servers: whatever an earlier run in this directory left goes
        if (Files.isDirectory(servers)) {
            try (Stream<Path> old = Files.walk(servers)) {
                old.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        Files.createDirectories(servers);
        Files.createDirectories(logs);
        Path serviceJar = jar(options.repo().resolve("examples/seckill/target"), "onlyonce-example-seckill");
        Path gatewayJar = jar(options.repo().resolve("examples/seckill-gateway/target"), "onlyonce-example-seckill-gateway");
        Console.say("starting a private Redis, PostgreSQL and RabbitMQ under " + servers);
        redis = keep(PrivateRedis.start(servers.resolve("redis"), Ports.free()));
        redisProxy = keep(TcpProxy.start(Ports.free(), redis.port()));
        postgres = keep(PrivatePostgres.start(servers.resolve("postgres"), Ports.free()));
        postgres.createDatabase(DATABASE);
        rabbit = keep(PrivateRabbit.start(servers.resolve("rabbit"), Ports.free(), "verify" + Ports.free()));
        seckill1 = keep(instance(serviceJar, 1));
        seckill2 = keep(instance(serviceJar, 2));
        Console.say("starting seckill-1 (it migrates the schema)");
        seckill1.start(Duration.ZERO);
        applyBreaks();
        Console.say("starting seckill-2");
        seckill2.start(Duration.ZERO);
        int second = seckill2.port();
        if (options.faults().contains(FaultKind.CLOCK_SKEW)) {
            // a third instance whose clock runs ahead, started once, here: it does its share of the
            // background work all along; the gateway reaches seckill-2 through a proxy that the
            // clock-skew fault points at it
            skewed = keep(instance(serviceJar, 3));
            Console.say("starting seckill-3, its clock " + SKEW.toMinutes() + " min ahead (libfaketime)");
            skewed.start(SKEW);
            secondFront = keep(TcpProxy.start(Ports.free(), seckill2.port()));
            second = secondFront.port();
        }
        int gatewayPort = Ports.free();
        int management = Ports.free();
        gateway = keep(new JavaService("gateway", gatewayJar, List.of("--server.shutdown=immediate"), Map.of(
                "SECKILL_INSTANCE_1", "http://127.0.0.1:" + seckill1.port(),
                "SECKILL_INSTANCE_2", "http://127.0.0.1:" + second,
                "SECKILL_JWT_SECRET", jwtSecret,
                "REDIS_HOST", "127.0.0.1", "REDIS_PORT", Integer.toString(redis.port()),
                "ONLYONCE_REDIS_PREFIX", PREFIX,
                "GATEWAY_PORT", Integer.toString(gatewayPort),
                "GATEWAY_MANAGEMENT_PORT", Integer.toString(management)), logs, gatewayPort,
                "http://127.0.0.1:" + management + "/actuator/health"));
        Console.say("starting the gateway");
        gateway.start(Duration.ZERO);
        lossy = keep(LossyProxy.start(Ports.free(), gatewayPort));
    }

    private JavaService instance(Path jar, int node) {
        int port = Ports.free();
        Map<String, String> env = new java.util.HashMap<>(secrets());
        // the TSID node of its order numbers: an order number tells which instance wrote it
        env.put("TSIDCREATOR_NODE", Integer.toString(node));
        return new JavaService("seckill-" + node, jar, instanceArgs(node, port), env, logs, port,
                "http://127.0.0.1:" + port + "/actuator/health");
    }

    private List<String> instanceArgs(int node, int port) {
        List<String> args = new ArrayList<>(List.of("--server.port=" + port,
                "--spring.profiles.active=postgres,redis,rabbit",
                "--server.address=127.0.0.1",
                "--spring.datasource.url=" + postgres.jdbcUrl(DATABASE),
                "--spring.datasource.username=postgres", "--spring.datasource.password=",
                "--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redisProxy.port(),
                "--onlyonce.redis.key-prefix=" + PREFIX,
                "--seckill.fast-path.key-prefix=" + PREFIX + "fast:",
                "--spring.rabbitmq.host=127.0.0.1", "--spring.rabbitmq.port=" + rabbit.port(),
                "--onlyonce.dedup.enabled=false",
                "--seckill.ids.node=" + node,
                "--seckill.auth.password-less-login=true",
                "--seckill.demo-data.enabled=false",
                "--seckill.limits.token-requests=100000", "--seckill.limits.order-requests=100000",
                "--seckill.limits.id-requests=100000",
                "--seckill.limits.max-unpaid-orders=" + Workload.MAX_UNPAID,
                "--seckill.limits.max-units-per-product=" + Workload.MAX_UNITS_PER_PRODUCT,
                "--seckill.limits.max-units-per-activity=1",
                "--onlyonce.key.lease=" + LEASE.toSeconds() + "s",
                "--onlyonce.messaging.relay.lease=5s", "--onlyonce.messaging.relay.publish-timeout=3s",
                "--onlyonce.messaging.relay.poll-interval=500ms",
                "--logging.level.root=WARN",
                "--logging.level.io.onlyonce=INFO"));
        if (options.broken("business-layer")) {
            args.add("--seckill.onlyonce.enabled=false");
            args.add("--seckill.fast-path.enabled=false");
        }
        return args;
    }

    private void applyBreaks() throws SQLException {
        try (Connection db = database()) {
            if (options.broken("business-layer")) {
                Console.say("--break business-layer: @Idempotent off, the unique business id dropped");
                db.createStatement().execute("ALTER TABLE orders DROP CONSTRAINT uk_orders_business_id");
            }
            if (options.broken("inbox")) {
                Console.say("--break inbox: the consumers' inbox keeps no key (its primary key dropped)");
                db.createStatement().execute("ALTER TABLE onlyonce_inbox DROP CONSTRAINT onlyonce_inbox_pkey");
            }
        }
    }

    /** A new connection to the service's database (autocommit). */
    public Connection database() throws SQLException {
        return DriverManager.getConnection(postgres.jdbcUrl(DATABASE), "postgres", "");
    }

    public String gatewayUrl() {
        return "http://127.0.0.1:" + gateway.port();
    }

    public String lossyUrl() {
        return "http://127.0.0.1:" + lossy.port();
    }

    public String paymentSecret() {
        return paymentSecret;
    }

    public PrivateRedis redis() {
        return redis;
    }

    public TcpProxy redisProxy() {
        return redisProxy;
    }

    public PrivatePostgres postgres() {
        return postgres;
    }

    public PrivateRabbit rabbit() {
        return rabbit;
    }

    public List<JavaService> instances() {
        return List.of(seckill1, seckill2);
    }

    /** The instance of TSID node {@code node}: seckill-1, seckill-2, or the skewed seckill-3. */
    public JavaService instance(int node) {
        return switch (node) {
            case 1 -> seckill1;
            case 3 -> skewed != null ? skewed : seckill2;
            default -> seckill2;
        };
    }

    /** The instance whose clock runs ahead, or null when the run has no clock-skew fault. */
    public JavaService skewed() {
        return skewed;
    }

    /** The proxy through which the gateway reaches the second instance (null without clock-skew). */
    public TcpProxy secondFront() {
        return secondFront;
    }

    public LossyProxy lossy() {
        return lossy;
    }

    public Path logs() {
        return logs;
    }

    public String prefix() {
        return PREFIX;
    }

    private <T extends AutoCloseable> T keep(T part) {
        started.add(part);
        return part;
    }

    @Override
    public void close() {
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                Console.say("stopping " + started.get(i).getClass().getSimpleName() + ": " + e);
            }
        }
    }

    private static Path jar(Path target, String artifact) throws IOException {
        if (!Files.isDirectory(target)) {
            throw new CannotRun("no " + target + ": build first (mvn -DskipTests package -pl examples/seckill,examples/seckill-gateway -am)");
        }
        try (Stream<Path> files = Files.list(target)) {
            return files.filter(p -> {
                String n = p.getFileName().toString();
                return n.startsWith(artifact + "-") && n.endsWith(".jar") && !n.endsWith("-plain.jar")
                        && !n.contains("-sources") && !n.contains("-javadoc")
                        && (artifact.endsWith("gateway") || !n.contains("gateway"));
            }).findFirst().orElseThrow(() -> new CannotRun("no packaged " + artifact + " jar in " + target));
        }
    }

    private static String secret() {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /** The secrets every instance is started with, as their environment. */
    Map<String, String> secrets() {
        return Map.of("SECKILL_JWT_SECRET", jwtSecret, "SECKILL_PAYMENT_SECRET", paymentSecret, "ONLYONCE_TOKEN_SECRET", tokenSecret);
    }
}
