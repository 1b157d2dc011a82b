package io.onlyonce.example.seckill.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.onlyonce.example.seckill.SeckillApplication;
import io.onlyonce.example.seckill.support.Api;
import io.onlyonce.example.seckill.support.PostgresAndRedis;
import io.onlyonce.spring.autoconfigure.OnlyOnceAutoConfiguration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code ops/} against a real Prometheus (Debian's {@code prometheus} package) scraping the service
 * on PostgreSQL (a database of this class alone) and Redis (a key prefix of its own): promtool accepts
 * the shipped rules; every dashboard panel's expression returns series and every rule's expression
 * is a valid query over metrics the service exports; the duplicate-spike alert fires when a client
 * replays its request over and over, and the breaker-open alert when a store's breaker opens. The
 * rules Prometheus loads are the shipped file with each {@code for:} shortened to one second, nothing
 * else changed. And {@code /actuator/health} shows its components to an operator only.
 *
 * <p>The Prometheus tests are skipped, saying so, where {@code prometheus} or {@code promtool} is not
 * installed ({@code scripts/test.sh} installs them).
 */
@SpringBootTest(classes = SeckillApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"seckill.order.sweeper-enabled=false", "seckill.limits.enabled=false",
            "seckill.fast-path.reconcile-interval=500ms", "onlyonce.messaging.relay.poll-interval=200ms",
            "onlyonce.messaging.metrics-interval=1s", "seckill.metrics-interval=1s",
            // the breaker the test forces open stays open: the store answers, and a probe would close it within a second
            "onlyonce.circuit-breaker.probe-interval=1h",
            "seckill.auth.operators=" + OperationsIT.OPERATOR})
@ActiveProfiles({"postgres", "redis"})
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OperationsIT {

    static final String OPERATOR = "ops-admin";
    static final PostgresAndRedis SERVERS = PostgresAndRedis.fresh();
    static final Path OPS = Path.of("../../ops").toAbsolutePath().normalize();
    static final Path RULES = OPS.resolve("prometheus/onlyonce-rules.yml");
    static final Path DASHBOARD = OPS.resolve("grafana/onlyonce-dashboard.json");
    static final JsonMapper JSON = JsonMapper.builder().build();
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /** Metrics another process exports (onlyonce-gateway's, scraped from the gateway). */
    static final String GATEWAY_METRICS = "onlyonce_gateway_";
    static final Pattern METRIC_NAME = Pattern.compile("\\b((?:onlyonce|seckill)[a-z0-9_:]*)\\b");

    static Path work;
    static Process prometheus;
    static String prometheusUrl;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        SERVERS.register(registry);
    }

    static void assumePrometheusInstalled() {
        Assumptions.assumeTrue(onPath("prometheus") && onPath("promtool"),
                "prometheus and promtool are not installed (apt-get install prometheus): the ops/ rules and dashboard"
                        + " are not checked");
    }

    @AfterAll
    static void stop() throws Exception {
        if (prometheus != null) {
            prometheus.destroy();
            if (!prometheus.waitFor(10, TimeUnit.SECONDS)) {
                prometheus.destroyForcibly();
            }
        }
        if (work != null) {
            try (var files = Files.walk(work)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        SERVERS.drop();
    }

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    @Autowired
    CircuitBreakerRegistry breakers;

    @Test
    @Order(1)
    void promtoolAcceptsTheShippedRules() throws Exception {
        assumePrometheusInstalled();
        Run check = run("promtool", "check", "rules", RULES.toString());
        assertThat(check.exitCode()).as(check.output()).isZero();
        assertThat(check.output()).contains("SUCCESS");
    }

    @Test
    @Order(2)
    void healthShowsItsComponentsToAnOperatorOnly() {
        Api api = new Api(port);
        Api.Response anonymous = api.get("/actuator/health", null);
        assertThat(anonymous.status()).as(anonymous.toString()).isEqualTo(200);
        assertThat(fieldNames(anonymous.json())).as(anonymous.body()).contains("status")
                .doesNotContain("components", "details");
        assertThat(anonymous.text("status")).isEqualTo("UP");

        Api.Session shopper = api.login("ops-shopper-" + System.nanoTime() % 100_000);
        Api.Response shoppers = api.get("/actuator/health", shopper);
        assertThat(shoppers.status()).isEqualTo(200);
        assertThat(fieldNames(shoppers.json())).as(shoppers.body()).contains("status")
                .doesNotContain("components", "details");

        Api.Response forged = api.send(api.request("GET", "/actuator/health", null, null, "Authorization",
                "Bearer " + io.onlyonce.example.seckill.support.Jwts.sign("not-the-service-secret-but-32-bytes-long",
                        Map.of("sub", OPERATOR, "scope", "ops"))));
        assertThat(forged.status()).as("a refused token is ignored here").isEqualTo(200);
        assertThat(fieldNames(forged.json())).as(forged.body()).doesNotContain("components", "details");

        Api.Response operators = api.get("/actuator/health", api.login(OPERATOR));
        assertThat(operators.status()).as(operators.toString()).isEqualTo(200);
        JsonNode components = operators.json().get("components");
        assertThat(components).as(operators.body()).isNotNull();
        assertThat(fieldNames(components)).contains("db", "redis", "onlyonce");
        assertThat(components.get("onlyonce").get("status").asString()).isEqualTo("UP");
        assertThat(components.get("db").get("details").get("database").asString()).isEqualTo("PostgreSQL");
    }

    @Test
    @Order(3)
    void everyPanelAndRuleQueriesTheServicesMetricsAndTheDuplicateAndBreakerAlertsFire() throws Exception {
        assumePrometheusInstalled();
        startPrometheus();
        Api api = new Api(port);
        await("the service scraped").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300))
                .until(() -> query("up{job=\"seckill\"} == 1").size() == 1);

        // every layer at work once: a flash-sale purchase (fast path) and its duplicate inside the
        // window, the order cancelled twice (its unit goes back through the outbox), an order replayed
        long sale = sale();
        Api.Session buyer = api.login("ops-buyer-" + System.nanoTime() % 100_000);
        String token = api.token(buyer, sale);
        Api.Response accepted = api.seckill(buyer, sale, token);
        assertThat(accepted.status()).as(accepted.toString()).isEqualTo(202);
        Api.Response windowed = api.seckill(buyer, sale, token);
        assertThat(windowed.status()).as(windowed.toString()).isEqualTo(429);
        String orderNo = ordered(api, buyer, accepted.text("reservationId"));
        assertThat(api.post("/api/orders/" + orderNo + "/cancel", buyer, null).status()).isEqualTo(200);
        assertThat(api.post("/api/orders/" + orderNo + "/cancel", buyer, null).status()).isEqualTo(200);
        String key = Api.businessId(buyer);
        assertThat(api.order(buyer, key, 1, 1).status()).isEqualTo(201);
        assertThat(api.order(buyer, key, 1, 1).status()).isEqualTo(201);

        await("every layer's counts and every gauge scraped").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                    assertThat(query("onlyonce_requests_total{job=\"seckill\", layer=\"business\", outcome=\"replayed\"}"))
                            .hasSize(1);
                    assertThat(query("onlyonce_requests_total{job=\"seckill\", layer=\"message\", outcome=\"processed\"}"))
                            .isNotEmpty();
                    assertThat(query("onlyonce_outbox_waiting{job=\"seckill\"} >= 0")).isNotEmpty();
                    assertThat(query("seckill_fastpath_queue_length{job=\"seckill\", activity=\"" + sale + "\"} >= 0"))
                            .hasSize(1);
                    assertThat(query("seckill_fastpath_stock_drift{job=\"seckill\", activity=\"" + sale + "\"} >= 0"))
                            .hasSize(1);
                });

        assertThat(query("ALERTS{alertname=\"OnlyOnceDuplicateSpike\"}")).as("one replay is below the floor").isEmpty();
        // a client replays one request 80 times: 80 duplicates in seconds against none before
        for (int i = 0; i < 80; i++) {
            assertThat(api.order(buyer, key, 1, 1).header("Idempotent-Replayed")).isEqualTo("true");
        }
        await("the duplicate-spike alert fires").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                .until(() -> !query("ALERTS{alertname=\"OnlyOnceDuplicateSpike\", alertstate=\"firing\","
                        + " layer=\"business\", endpoint=\"POST /api/orders\"}").isEmpty());

        // the idempotency store's breaker opens: a keyed request is refused without the store
        CircuitBreaker breaker = breakers.circuitBreaker(OnlyOnceAutoConfiguration.IDEMPOTENCY_BREAKER);
        breaker.transitionToForcedOpenState();
        try {
            Api.Response refused = api.order(buyer, Api.businessId(buyer), 1, 1);
            assertThat(refused.status()).as(refused.toString()).isEqualTo(503);
            await("the breaker-open alert fires").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                    .until(() -> !query("ALERTS{alertname=\"OnlyOnceCircuitOpen\", alertstate=\"firing\","
                            + " breaker=\"" + OnlyOnceAutoConfiguration.IDEMPOTENCY_BREAKER + "\"}").isEmpty());
            assertThat(query("ALERTS{alertname=\"OnlyOnceCircuitOpen\", alertstate=\"firing\"}"))
                    .as("the other breakers stay closed").hasSize(1);

            Set<String> present = metricNames();
            List<String> problems = new ArrayList<>();
            for (String expression : dashboardExpressions()) {
                List<JsonNode> series = query(expression);
                if (series.isEmpty() && !expression.contains(" offset ")) {
                    problems.add("panel returns no series: " + expression);
                }
                problems.addAll(missingMetrics(expression, present));
            }
            for (String expression : ruleExpressions()) {
                query(expression);
                problems.addAll(missingMetrics(expression, present));
            }
            assertThat(problems).isEmpty();
        } finally {
            breaker.transitionToClosedState();
        }
    }

    /** A running flash sale of product 1, of this test alone. */
    long sale() {
        long id = 900;
        jdbc.sql("INSERT INTO seckill_activities (id, name, starts_at, ends_at) VALUES (?, ?, ?, ?)")
                .params(id, "ops " + id, Instant.now().minusSeconds(60).toEpochMilli(),
                        Instant.now().plus(Duration.ofDays(1)).toEpochMilli()).update();
        jdbc.sql("INSERT INTO seckill_stock (activity_id, product_id, price, initial_stock, stock) VALUES (?, 1, ?, 10, 10)")
                .params(id, new BigDecimal("9.90")).update();
        return id;
    }

    static String ordered(Api api, Api.Session buyer, String reservationId) {
        Api.Response[] last = new Api.Response[1];
        await("the reservation written").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
            last[0] = api.get("/api/seckill/reservations/" + reservationId, buyer);
            return last[0].status() == 200 && !last[0].text("status").equals("QUEUED");
        });
        return last[0].text("orderNo");
    }

    void startPrometheus() throws IOException, InterruptedException {
        work = Files.createTempDirectory("onlyonce-prometheus");
        // the shipped rules, every "for:" shortened so that an alert fires within the test
        String rules = Files.readString(RULES).replaceAll("(?m)^(\\s+)for: \\S+$", "$1for: 1s");
        assertThat(rules).isNotEqualTo(Files.readString(RULES));
        Files.writeString(work.resolve("rules.yml"), rules);
        Files.writeString(work.resolve("prometheus.yml"), """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                rule_files: [rules.yml]
                scrape_configs:
                  - job_name: seckill
                    metrics_path: /actuator/prometheus
                    static_configs:
                      - targets: ["127.0.0.1:%d"]
                """.formatted(port));
        int prometheusPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            prometheusPort = socket.getLocalPort();
        }
        prometheusUrl = "http://127.0.0.1:" + prometheusPort;
        prometheus = new ProcessBuilder("prometheus", "--config.file=" + work.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + work.resolve("data"), "--web.listen-address=127.0.0.1:" + prometheusPort)
                .directory(work.toFile()).redirectErrorStream(true).redirectOutput(work.resolve("prometheus.log").toFile())
                .start();
        await("Prometheus ready").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .ignoreExceptions().until(() -> {
                    assertThat(prometheus.isAlive()).as(() -> log()).isTrue();
                    return get("/-/ready").statusCode() == 200;
                });
    }

    static String log() {
        try {
            return Files.readString(work.resolve("prometheus.log"));
        } catch (IOException e) {
            return e.toString();
        }
    }

    /** The series an instant query returns; fails on an invalid query. */
    static List<JsonNode> query(String expression) {
        HttpResponse<String> response = get("/api/v1/query?query=" + URLEncoder.encode(expression, StandardCharsets.UTF_8));
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("status").asString()).as(expression + " -> " + response.body()).isEqualTo("success");
        return StreamSupport.stream(body.get("data").get("result").spliterator(), false).toList();
    }

    static Set<String> metricNames() {
        JsonNode body = JSON.readTree(get("/api/v1/label/__name__/values").body());
        Set<String> names = new TreeSet<>();
        body.get("data").forEach(name -> names.add(name.asString()));
        return names;
    }

    /** The OnlyOnce and service metrics {@code expression} names that Prometheus does not have. */
    static List<String> missingMetrics(String expression, Set<String> present) {
        List<String> missing = new ArrayList<>();
        Matcher names = METRIC_NAME.matcher(expression.replaceAll("\"[^\"]*\"", "\"\""));
        while (names.find()) {
            String name = names.group(1);
            if (!name.startsWith(GATEWAY_METRICS) && !present.contains(name)) {
                missing.add("no metric " + name + " for " + expression);
            }
        }
        return missing;
    }

    /** Every panel target's expression, Grafana's variables given the values of one whole range. */
    static List<String> dashboardExpressions() throws IOException {
        JsonNode dashboard = JSON.readTree(Files.readString(DASHBOARD));
        List<String> expressions = new ArrayList<>();
        for (JsonNode panel : dashboard.get("panels")) {
            if (panel.has("targets")) {
                for (JsonNode target : panel.get("targets")) {
                    expressions.add(target.get("expr").asString().replace("$__rate_interval", "1m").replace("$job", ".+"));
                }
            }
        }
        assertThat(expressions).hasSizeGreaterThanOrEqualTo(12);
        return expressions;
    }

    @SuppressWarnings("unchecked")
    static List<String> ruleExpressions() throws IOException {
        Map<String, Object> file = new Yaml().load(Files.readString(RULES));
        Set<String> expressions = new LinkedHashSet<>();
        for (Map<String, Object> group : (List<Map<String, Object>>) file.get("groups")) {
            for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
                expressions.add(String.valueOf(rule.get("expr")).strip());
            }
        }
        return List.copyOf(expressions);
    }

    static HttpResponse<String> get(String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(prometheusUrl + path)).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.propertyNames().forEach(names::add);
        return names;
    }

    record Run(int exitCode, String output) {
    }

    static Run run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Run(process.exitValue(), output);
    }

    static boolean onPath(String command) {
        String path = System.getenv("PATH");
        return path != null && java.util.Arrays.stream(path.split(java.io.File.pathSeparator))
                .anyMatch(dir -> Files.isExecutable(Path.of(dir, command)));
    }
}
