package io.onlyonce.example.redisson;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RedissonClient;
import org.redisson.spring.data.connection.RedissonConnectionFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The service as its clients see it, on the real Redis through Redisson: this run's balances and
 * OnlyOnce's records under key prefixes of its own.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PointsIT {

    static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    static final String POINTS = "redisson-example-" + RUN + ":points:";
    static final String RECORDS = "redisson-example-" + RUN + ":onlyonce:";
    static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @DynamicPropertySource
    static void ownPrefixes(DynamicPropertyRegistry registry) {
        registry.add("points.key-prefix", () -> POINTS);
        registry.add("onlyonce.redis.key-prefix", () -> RECORDS);
    }

    @LocalServerPort
    int port;

    @Autowired
    RedissonClient redisson;

    @Autowired
    ApplicationContext context;

    @AfterAll
    void deleteThisRunsKeys() {
        redisson.getKeys().deleteByPattern("redisson-example-" + RUN + ":*");
    }

    @Test
    void theApplicationsRedisIsRedissonsConnectionFactoryAndNoLettuceOfItsOwn() {
        assertThat(context.getBeansOfType(RedisConnectionFactory.class).values())
                .singleElement().isInstanceOf(RedissonConnectionFactory.class);
    }

    @Test
    void aRetryIsReplayedAndGrantsNothingMore() {
        String account = "a-" + UUID.randomUUID();
        String key = UUID.randomUUID().toString();

        HttpResponse<String> first = grant(account, key, 10);
        HttpResponse<String> retry = grant(account, key, 10);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.body()).isEqualTo("{\"account\":\"" + account + "\",\"granted\":10,\"balance\":10}");
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(redisson.getAtomicLong(POINTS + account).get()).isEqualTo(10);
        assertThat(redisson.getKeys().getKeysByPattern(RECORDS + "*")).as("OnlyOnce's records, in Redis through Redisson")
                .isNotEmpty();
    }

    @Test
    void theSameKeyWithAnotherBodyIs422AndGrantsNothing() {
        String account = "a-" + UUID.randomUUID();
        String key = UUID.randomUUID().toString();
        assertThat(grant(account, key, 10).statusCode()).isEqualTo(201);

        HttpResponse<String> other = grant(account, key, 99);

        assertThat(other.statusCode()).isEqualTo(422);
        assertThat(other.headers().firstValue("Content-Type")).contains("application/problem+json");
        assertThat(redisson.getAtomicLong(POINTS + account).get()).isEqualTo(10);
    }

    @Test
    void twentyParallelIdenticalRequestsGrantOnce() throws Exception {
        String account = "a-" + UUID.randomUUID();
        String key = UUID.randomUUID().toString();
        // a warm service: its first request opens the store's connection
        assertThat(grant("warm-" + account, UUID.randomUUID().toString(), 1).statusCode()).isEqualTo(201);
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService clients = Executors.newFixedThreadPool(20);
        List<HttpResponse<String>> answers = new ArrayList<>();
        try {
            List<Future<HttpResponse<String>>> sent = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                sent.add(clients.submit(() -> {
                    start.await();
                    return grant(account, key, 5);
                }));
            }
            start.countDown();
            for (Future<HttpResponse<String>> answer : sent) {
                answers.add(answer.get());
            }
        } finally {
            clients.shutdownNow();
        }

        assertThat(redisson.getAtomicLong(POINTS + account).get()).as("granted once").isEqualTo(5);
        assertThat(answers).allSatisfy(answer -> assertThat(answer.statusCode()).isIn(201, 409));
        assertThat(answers.stream().filter(a -> a.statusCode() == 201
                && a.headers().firstValue("Idempotent-Replayed").isEmpty())).as("the one that ran").hasSize(1);
    }

    private HttpResponse<String> grant(String account, String key, int points) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/accounts/" + account + "/grants"))
                .timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{\"points\":" + points + "}"))
                .build();
        try {
            return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
