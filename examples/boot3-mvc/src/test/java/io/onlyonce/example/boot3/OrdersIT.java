package io.onlyonce.example.boot3;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The service as its clients see it, on the real MariaDB: this run's orders and records in a
 * database of its own.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class OrdersIT {

    static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    static final String DATABASE = "boot3_mvc_" + RUN;
    static final String MARIADB = "jdbc:mariadb://127.0.0.1:3306/";
    static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @DynamicPropertySource
    static void ownDatabase(DynamicPropertyRegistry registry) throws SQLException {
        try (Connection admin = DriverManager.getConnection(MARIADB + "test", "root", "")) {
            admin.createStatement().execute("CREATE DATABASE " + DATABASE);
        }
        registry.add("spring.datasource.url", () -> MARIADB + DATABASE);
    }

    @AfterAll
    static void dropDatabase() throws SQLException {
        try (Connection admin = DriverManager.getConnection(MARIADB + "test", "root", "")) {
            admin.createStatement().execute("DROP DATABASE " + DATABASE);
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    @Test
    void fiftyParallelIdenticalRequestsPlaceOneOrder() throws Exception {
        String key = UUID.randomUUID().toString();
        String item = "phone-" + key;
        String body = order(item, 1);
        // a warm service, as in production: its first request opens the store's connection
        assertThat(send("alice", UUID.randomUUID().toString(), order("warm-up-" + key, 1)).statusCode()).isEqualTo(201);
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService clients = Executors.newFixedThreadPool(50);
        List<HttpResponse<String>> responses = new ArrayList<>();
        try {
            List<Future<HttpResponse<String>>> sent = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                sent.add(clients.submit(() -> {
                    start.await();
                    return send("alice", key, body);
                }));
            }
            start.countDown();
            for (Future<HttpResponse<String>> response : sent) {
                responses.add(response.get());
            }
        } finally {
            clients.shutdownNow();
        }

        assertThat(orders("alice", item)).as("one row").isEqualTo(1);
        List<HttpResponse<String>> created = responses.stream().filter(r -> r.statusCode() == 201).toList();
        List<HttpResponse<String>> inProgress = responses.stream().filter(r -> r.statusCode() == 409).toList();
        assertThat(created.size() + inProgress.size()).as("every answer is the order or 409 in progress").isEqualTo(50);
        assertThat(created).as("the first answer, then its replays").isNotEmpty();
        assertThat(created).extracting(HttpResponse::body).containsOnly(created.get(0).body());
        assertThat(created.stream().filter(r -> r.headers().firstValue("Idempotent-Replayed").isEmpty()))
                .as("one execution, the rest replays").hasSize(1);
        inProgress.forEach(r -> assertThat(r.body()).contains("urn:onlyonce:problem:idempotency-request-in-progress"));
        assertThat(jdbc.sql("SELECT status FROM onlyonce_idempotency WHERE scope = ? AND idem_key = ?")
                .params("POST /orders alice", key).query(String.class).list())
                .as("the record, completed, in the service's own database").containsExactly("C");

        HttpResponse<String> later = send("alice", key, body);
        assertThat(later.statusCode()).isEqualTo(201);
        assertThat(later.body()).isEqualTo(created.get(0).body());
        assertThat(later.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    }

    @Test
    void anotherBodyUnderTheSameKeyIs422AndPlacesNothing() throws Exception {
        String key = UUID.randomUUID().toString();
        String item = "phone-" + key;
        assertThat(send("alice", key, order(item, 1)).statusCode()).isEqualTo(201);

        HttpResponse<String> reused = send("alice", key, order(item, 2));

        assertThat(reused.statusCode()).isEqualTo(422);
        assertThat(reused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(reused.body()).contains("urn:onlyonce:problem:idempotency-key-reused");
        assertThat(orders("alice", item)).as("only the first order").isEqualTo(1);
    }

    @Test
    void noKeyIs400InEnglishOrChinese() throws Exception {
        String item = "phone-" + UUID.randomUUID();
        HttpResponse<String> english = send("alice", null, order(item, 1));
        HttpResponse<String> chinese = CLIENT.send(request("alice", null, order(item, 1))
                .header("Accept-Language", "zh-CN").build(), HttpResponse.BodyHandlers.ofString());

        assertThat(english.statusCode()).isEqualTo(400);
        assertThat(english.body()).contains("urn:onlyonce:problem:idempotency-key-missing");
        assertThat(chinese.statusCode()).isEqualTo(400);
        assertThat(chinese.body()).contains("urn:onlyonce:problem:idempotency-key-missing").contains("\"title\":\"缺少幂等键\"");
        assertThat(orders("alice", item)).as("nothing ran").isZero();
    }

    @Test
    void twoUsersWithOneKeyPlaceTwoOrders() throws Exception {
        String key = UUID.randomUUID().toString();
        String item = "book-" + key;
        String body = order(item, 1);

        HttpResponse<String> alice = send("alice", key, body);
        HttpResponse<String> bob = send("bob", key, body);

        assertThat(alice.statusCode()).isEqualTo(201);
        assertThat(bob.statusCode()).isEqualTo(201);
        assertThat(bob.headers().firstValue("Idempotent-Replayed")).as("bob never gets alice's order").isEmpty();
        assertThat(bob.body()).contains("\"buyer\":\"bob\"").isNotEqualTo(alice.body());
        assertThat(orders("alice", item)).isEqualTo(1);
        assertThat(orders("bob", item)).isEqualTo(1);
    }

    /** The rows {@code buyer} has for {@code item} in this run's orders table. */
    private long orders(String buyer, String item) {
        return jdbc.sql("SELECT COUNT(*) FROM orders WHERE buyer = ? AND item = ?").params(buyer, item).query(Long.class).single();
    }

    private static String order(String item, int quantity) {
        return "{\"item\":\"" + item + "\",\"quantity\":" + quantity + "}";
    }

    private HttpResponse<String> send(String user, String key, String body) throws Exception {
        return CLIENT.send(request(user, key, body).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder request(String user, String key, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders"))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .header("Authorization", "Basic " + Base64.getEncoder()
                        .encodeToString((user + ":" + user + "-pw").getBytes(StandardCharsets.UTF_8)))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        return key == null ? request : request.header("Idempotency-Key", key);
    }
}
