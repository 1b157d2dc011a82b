package io.onlyonce.example.orders;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import tools.jackson.databind.JsonNode;

/**
 * What a client and the database see when the order service runs in one of its users'
 * configurations; each subclass is one configuration (store, persistence, advisor order, database)
 * against the real servers, in a database and key prefix of its own.
 */
@org.junit.jupiter.api.TestInstance(org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractUserConfigurationIT {

    @LocalServerPort
    int port;

    @Autowired
    RefundService refundService;

    @Autowired
    StringRedisTemplate redis;

    Client client;

    /** This class's configuration. */
    abstract UserConfiguration configuration();

    ScratchDatabase database() {
        return configuration().database();
    }

    boolean joined() {
        return configuration().joined();
    }

    List<String> records(String refundNo) {
        return configuration().records(redis, refundNo);
    }

    List<String> scopes(String refundNo) {
        return configuration().scopes(redis, refundNo);
    }

    @BeforeEach
    void client() {
        client = new Client("http://127.0.0.1:" + port);
    }

    @org.junit.jupiter.api.AfterAll
    void dropDatabase() {
        database().drop();
    }

    static String newRefundNo() {
        return "R-" + UUID.randomUUID().toString().substring(0, 13);
    }

    long refundRows(String refundNo) {
        return database().count("SELECT count(*) FROM refunds WHERE refund_no = '" + refundNo + "'");
    }

    @Test
    void fiftyParallelIdenticalRefundsMakeOneRefund() throws Exception {
        String refundNo = newRefundNo();
        int before = refundService.executions();
        List<HttpResponse<String>> answers = parallel(50, i -> client.post("alice", "/refunds", Client.refund(refundNo, 7, 1200, 200, false)));
        assertThat(refundService.executions() - before).isEqualTo(1);
        assertThat(refundRows(refundNo)).isEqualTo(1);
        long id = -1;
        for (HttpResponse<String> answer : answers) {
            if (answer.statusCode() == 409) {
                // still running: the same problem a handler gets, not the application's {"code":500}
                assertThat(answer.headers().firstValue("Content-Type")).hasValue("application/problem+json");
                assertThat(Client.json(answer).get("type").asString()).endsWith("idempotency-request-in-progress");
                continue;
            }
            assertThat(answer.statusCode()).isEqualTo(200);
            JsonNode body = Client.json(answer);
            assertThat(body.get("code").asInt()).as(answer.body()).isZero();
            long answered = body.get("data").get("id").asLong();
            assertThat(id == -1 || id == answered).as("every caller is given the one refund").isTrue();
            id = answered;
        }
        assertThat(id).isPositive();
        assertThat(records(refundNo)).containsExactly("C");
    }

    @Test
    void aCheckoutThatFailsAfterItsRefundLeavesNothingAndItsRetryRunsAgain() {
        String refundNo = newRefundNo();
        int before = refundService.executions();
        HttpResponse<String> failed = client.post("alice", "/checkouts", Client.refund(refundNo, 7, 1200, 0, true));
        assertThat(Client.json(failed).get("code").asInt()).isEqualTo(500);
        assertThat(refundRows(refundNo)).isZero();
        assertThat(records(refundNo)).as("the record of rolled-back work is gone").isEmpty();

        HttpResponse<String> retried = client.post("alice", "/checkouts", Client.refund(refundNo, 7, 1200, 0, false));
        assertThat(Client.json(retried).get("code").asInt()).as(retried.body()).isZero();
        assertThat(refundService.executions() - before).as("the retry ran: no ghost replay").isEqualTo(2);
        assertThat(refundRows(refundNo)).isEqualTo(1);
        assertThat(Client.json(retried).get("data").get("refundNo").asString()).isEqualTo(refundNo);
        assertThat(records(refundNo)).containsExactly("C");
    }

    @Test
    void aCompletedRefundIsGivenBackToItsOwnerAndBobWithAlicesNumberGetsNothingOfHers() {
        String refundNo = newRefundNo();
        HttpResponse<String> first = client.post("alice", "/refunds", Client.refund(refundNo));
        HttpResponse<String> again = client.post("alice", "/refunds", Client.refund(refundNo));
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(Client.json(again).get("data").get("owner").asString()).isEqualTo("alice");

        int before = refundService.executions();
        HttpResponse<String> bob = client.post("bob", "/refunds", Client.refund(refundNo));
        assertThat(bob.body()).doesNotContain("alice");
        assertThat(refundService.executions() - before).as("bob's call is his own").isEqualTo(1);
        assertThat(refundRows(refundNo)).as("the data layer's unique refund number holds").isEqualTo(1);
        assertThat(scopes(refundNo)).as("bob's failed call released his own record")
                .containsExactly("method io.onlyonce.example.orders.RefundService#refund alice");
    }

    @Test
    void aNotifiedRefundKeyedWithoutThePrincipalIsOneRefundWhoeverRelaysIt() {
        String refundNo = newRefundNo();
        int before = refundService.executions();
        HttpResponse<String> alice = client.post("alice", "/refund-notices", Client.refund(refundNo));
        HttpResponse<String> bob = client.post("bob", "/refund-notices", Client.refund(refundNo));

        assertThat(Client.json(alice).get("code").asInt()).as(alice.body()).isZero();
        assertThat(bob.body()).as("perPrincipal = false: bob is given the refund alice's relay made").isEqualTo(alice.body());
        assertThat(Client.json(bob).get("data").get("owner").asString()).isEqualTo(RefundService.PLATFORM);
        assertThat(refundService.executions() - before).isEqualTo(1);
        assertThat(refundRows(refundNo)).isEqualTo(1);
        assertThat(scopes(refundNo)).containsExactly("method io.onlyonce.example.orders.RefundService#refundNotified");
    }

    @Test
    void aCallOutsideAnyRequestIsScopedByTheMethodAloneAndNotByAUsersScope() {
        String refundNo = newRefundNo();
        int before = refundService.executions();
        RefundRequest request = new RefundRequest(refundNo, 7, 1200, 0, false);
        // a job's call: no request, no security context on this thread
        Refund first = refundService.refund(request, "nightly-job");
        Refund again = refundService.refund(request, "nightly-job");

        assertThat(again).isEqualTo(first);
        assertThat(refundService.executions() - before).isEqualTo(1);
        assertThat(refundRows(refundNo)).isEqualTo(1);
        assertThat(scopes(refundNo)).containsExactly("method io.onlyonce.example.orders.RefundService#refund");
        assertThat(records(refundNo)).containsExactly("C");
    }

    @Test
    void theSameRefundNumberWithAnotherAmountIsA422ProblemPastTheWrapper() {
        String refundNo = newRefundNo();
        client.post("alice", "/refunds", Client.refund(refundNo, 7, 1200, 0, false));
        HttpResponse<String> other = client.post("alice", "/refunds", Client.refund(refundNo, 7, 9900, 0, false), "zh-CN");
        assertThat(other.statusCode()).isEqualTo(422);
        assertThat(other.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        JsonNode problem = Client.json(other);
        assertThat(problem.get("type").asString()).endsWith("idempotency-key-reused");
        assertThat(problem.has("code")).as("not wrapped").isFalse();
        assertThat(problem.get("title").asString()).matches(".*\\p{IsHan}.*");
        assertThat(refundRows(refundNo)).isEqualTo(1);
    }

    @Test
    void aRefundStillRunningIsAnsweredAsTheRetryAfterOfItsOwnDuration() throws Exception {
        client.post("alice", "/refunds", Client.refund(newRefundNo()));
        String refundNo = newRefundNo();
        int before = refundService.executions();
        CompletableFuture<HttpResponse<String>> slow = CompletableFuture.supplyAsync(
                () -> client.post("alice", "/refunds", Client.refund(refundNo, 7, 1200, 3000, false)));
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                .until(() -> refundService.executions() > before);
        HttpResponse<String> duplicate = client.post("alice", "/refunds", Client.refund(refundNo, 7, 1200, 3000, false));
        HttpResponse<String> first = slow.get();
        assertThat(Client.json(first).get("code").asInt()).isZero();
        if (joined()) {
            // joined: the duplicate waited for the first's transaction, then was given its refund
            assertThat(duplicate.body()).isEqualTo(first.body());
        } else {
            assertThat(duplicate.statusCode()).isEqualTo(409);
            assertThat(duplicate.headers().firstValue("Retry-After")).as("not the rest of a 30 s lease").hasValue("1");
            assertThat(Client.json(duplicate).get("type").asString()).endsWith("idempotency-request-in-progress");
        }
        assertThat(refundRows(refundNo)).isEqualTo(1);
    }

    @Test
    void sixCheckoutsEachHoldingATransactionAllSucceedOnAPoolOfFourWhenTheStoreJoins() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(joined(), "only a joined store uses the transaction's connection");
        List<String> numbers = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            numbers.add(newRefundNo());
        }
        List<HttpResponse<String>> answers = parallel(6,
                i -> client.post("alice", "/checkouts", Client.refund(numbers.get(i), 7, 100, 300, false)));
        for (HttpResponse<String> answer : answers) {
            assertThat(Client.json(answer).get("code").asInt()).as(answer.body()).isZero();
        }
        for (String number : numbers) {
            assertThat(refundRows(number)).isEqualTo(1);
            assertThat(records(number)).containsExactly("C");
        }
    }

    static List<HttpResponse<String>> parallel(int n, java.util.function.IntFunction<HttpResponse<String>> call)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<HttpResponse<String>>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int index = i;
                futures.add(pool.submit(() -> {
                    start.await();
                    return call.apply(index);
                }));
            }
            start.countDown();
            List<HttpResponse<String>> answers = new ArrayList<>();
            for (Future<HttpResponse<String>> future : futures) {
                answers.add(future.get());
            }
            return answers;
        } finally {
            pool.shutdownNow();
        }
    }
}
