package io.onlyonce.example.seckill.fastpath;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.example.seckill.SeckillApplication;
import io.onlyonce.example.seckill.support.Api;
import io.onlyonce.example.seckill.support.ExternalDatabases;
import io.onlyonce.example.seckill.support.Redis;
import io.onlyonce.example.seckill.support.TestSecrets;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A paused Redis (SIGSTOP: it accepts connections and never answers) under the fast path: a purchase
 * is answered 503 within the Redis command timeout (2 s), not held until the client gives up, and
 * takes nothing; once Redis resumes, purchases are accepted again and the sale adds up.
 */
@SpringBootTest(classes = SeckillApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"seckill.order.sweeper-enabled=false", "seckill.limits.enabled=false", "onlyonce.dedup.enabled=false",
            // a consumer's read that timed out while Redis was paused is still delivered when it resumes;
            // those entries are taken over after the claim time (30 s by default)
            "seckill.fast-path.claim-idle=3s"})
@ActiveProfiles({"postgres", "redis"})
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class FastPathRedisPausedIT {

    static final String DATABASE = ExternalDatabases.newName();
    static Redis.Private redis;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        redis = Redis.Private.startFor(registry);
        TestSecrets.register(registry);
        ExternalDatabases.usePostgres(registry, DATABASE);
    }

    @AfterAll
    static void drop() throws Exception {
        redis.resumeAndClose();
        ExternalDatabases.dropPostgres(DATABASE);
    }

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    @Test
    void aPausedRedisIsAnswered503WithinTheBudgetAndTakesNothing() throws Exception {
        Api api = new Api(port);
        Api.Session first = api.login("paused-a");
        Api.Session second = api.login("paused-b");
        Api.Session third = api.login("paused-c");
        assertThat(api.seckill(first, 1, api.token(first, 1)).status()).isEqualTo(202);
        String token = api.token(second, 1);

        redis.signal("STOP");
        Api.Response paused;
        try {
            // the client waits up to 20 s; the service must answer long before
            paused = api.send(api.request("POST", "/api/seckill/activities/1/orders", second, "{\"quantity\":1}",
                    "Idempotency-Token", token).timeout(Duration.ofSeconds(20)));
        } finally {
            redis.signal("CONT");
        }
        assertThat(paused.status()).as(paused.toString()).isEqualTo(503);
        assertThat(paused.problem()).isIn("sale-unavailable", "idempotency-store-unavailable");
        assertThat(paused.body()).doesNotContain("Exception").doesNotContain("redis");

        Api.Response resumed = api.seckill(third, 1, api.token(third, 1));
        assertThat(resumed.status()).as(resumed.toString()).isEqualTo(202);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() ->
                jdbc.sql("SELECT COUNT(*) FROM orders WHERE activity_id = 1").query(Long.class).single() == 2);
        assertThat(jdbc.sql("SELECT COUNT(*) FROM orders WHERE activity_id = 1 AND user_id = ?").param(second.userId())
                .query(Long.class).single()).isZero();
    }
}
