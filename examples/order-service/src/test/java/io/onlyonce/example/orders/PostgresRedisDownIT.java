package io.onlyonce.example.orders;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * PostgreSQL through JdbcClient, OnlyOnce's records in a Redis that is down (its port is closed),
 * under the default STRICT policy: a refund and a checkout, whose {@code @Idempotent} service method
 * cannot claim its key, are answered OnlyOnce's 503 problem with the configured {@code Retry-After},
 * past the application's global exception handler and result wrapper, and nothing is refunded.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresRedisDownIT {

    static final UserConfiguration CONFIGURATION = UserConfiguration.postgresWithRedisDown();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        CONFIGURATION.register(registry);
        registry.add("onlyonce.key.unavailable-retry-after", () -> "7s");
    }

    @LocalServerPort
    int port;

    @Autowired
    RefundService refundService;

    Client client;

    @BeforeEach
    void client() {
        client = new Client("http://127.0.0.1:" + port);
    }

    @AfterAll
    void dropDatabase() {
        CONFIGURATION.database().drop();
    }

    @Test
    void aRefundIsA503ProblemWithRetryAfterPastTheWrapperAndNothingIsRefunded() {
        assertUnavailable("/refunds", "en");
    }

    @Test
    void aCheckoutIsA503ProblemWithRetryAfterPastTheWrapperAndNothingIsRefunded() {
        assertUnavailable("/checkouts", "zh-CN");
    }

    private void assertUnavailable(String path, String language) {
        String refundNo = AbstractUserConfigurationIT.newRefundNo();
        int before = refundService.executions();
        HttpResponse<String> answer = client.post("alice", path, Client.refund(refundNo), language);

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(503);
        assertThat(answer.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(answer.headers().firstValue("Retry-After")).as("onlyonce.key.unavailable-retry-after").hasValue("7");
        JsonNode problem = Client.json(answer);
        assertThat(problem.get("type").asString()).isEqualTo("urn:onlyonce:problem:idempotency-store-unavailable");
        assertThat(problem.get("status").asInt()).isEqualTo(503);
        assertThat(problem.has("code")).as("not wrapped: %s", answer.body()).isFalse();
        if (language.startsWith("zh")) {
            assertThat(problem.get("title").asString()).matches(".*\\p{IsHan}.*");
        }
        assertThat(refundService.executions() - before).as("the refund did not run").isZero();
        assertThat(CONFIGURATION.database().count("SELECT count(*) FROM refunds WHERE refund_no = '" + refundNo + "'"))
                .isZero();
    }
}
