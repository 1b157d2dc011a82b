package io.onlyonce.example.orders;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The order service in a process of its own, killed with SIGKILL after a refund's business
 * transaction committed and before anything after the commit ran: exactly where OnlyOnce completes
 * a record it does not write inside the transaction. Joined to the transaction (JDBC store,
 * {@code onlyonce.jdbc.join-transaction=true}), the record committed with the refund, and the
 * retry after the restart is given that refund. On Redis the record is still in progress: the
 * retry is told so until the lease ends, then runs again, and the refund table's unique refund
 * number is what keeps the refund single.
 */
class ServiceKilledBetweenCommitAndCompletionIT {

    private final List<Process> processes = new ArrayList<>();
    private final List<ScratchDatabase> databases = new ArrayList<>();

    @AfterEach
    void cleanUp() throws InterruptedException {
        for (Process process : processes) {
            process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        databases.forEach(ScratchDatabase::drop);
    }

    @Test
    void joinedToTheTransactionTheRecordCommittedWithTheRefundAndTheRetryIsGivenIt() throws Exception {
        ScratchDatabase database = database();
        List<String> settings = List.of("--onlyonce.store=jdbc", "--onlyonce.jdbc.join-transaction=true");
        String refundNo = "pause-" + UUID.randomUUID().toString().substring(0, 8);

        HttpResponse<String> first = killedAfterCommit(database, settings, refundNo);
        assertThat(first).as("the client never got an answer").isNull();
        assertThat(refunds(database, refundNo)).isEqualTo(1);
        assertThat(database.count("SELECT count(*) FROM onlyonce_idempotency WHERE idem_key = '" + refundNo
                + "' AND status = 'C'")).as("completed in the same commit").isEqualTo(1);

        int port = start(database, settings, false);
        Client client = new Client("http://127.0.0.1:" + port);
        HttpResponse<String> retry = client.post("alice", "/refunds", Client.refund(refundNo));
        JsonNode body = Client.json(retry);
        assertThat(body.get("code").asInt()).as(retry.body()).isZero();
        assertThat(body.get("data").get("refundNo").asString()).isEqualTo(refundNo);
        assertThat(executions(client)).as("replayed, not run again").isZero();
        assertThat(refunds(database, refundNo)).isEqualTo(1);
    }

    @Test
    void onRedisTheRecordIsLeftInProgressUntilItsLeaseEndsAndTheDataLayerKeepsTheRefundSingle() throws Exception {
        ScratchDatabase database = database();
        String prefix = "oo-killed-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        List<String> settings = List.of("--onlyonce.store=redis", "--onlyonce.redis.key-prefix=" + prefix,
                "--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=6379", "--onlyonce.key.lease=5m");
        String refundNo = "pause-" + UUID.randomUUID().toString().substring(0, 8);

        assertThat(killedAfterCommit(database, settings, refundNo)).isNull();
        assertThat(refunds(database, refundNo)).isEqualTo(1);
        io.lettuce.core.RedisClient redisClient = io.lettuce.core.RedisClient.create("redis://127.0.0.1:6379");
        try (var connection = redisClient.connect()) {
            List<String> keys = connection.sync().keys(prefix + "i:*:" + refundNo);
            assertThat(keys).hasSize(1);
            assertThat(connection.sync().get(keys.get(0))).as("left in progress (R)").startsWith("R");

            int port = start(database, settings, false);
            Client client = new Client("http://127.0.0.1:" + port);
            HttpResponse<String> early = client.post("alice", "/refunds", Client.refund(refundNo));
            assertThat(early.statusCode()).as("the record is still in progress: " + early.body()).isEqualTo(409);
            // the lease ends: moved on Redis's own clock rather than waited for
            connection.sync().pexpire(keys.get(0), 1);
            Thread.sleep(20);
            verifyRetryAfterLease(client, database, refundNo);
        } finally {
            redisClient.shutdown();
        }
    }

    private void verifyRetryAfterLease(Client client, ScratchDatabase database, String refundNo) {
        HttpResponse<String> late = client.post("alice", "/refunds", Client.refund(refundNo));
        assertThat(executions(client)).as("after the lease the retry runs the refund again").isEqualTo(1);
        assertThat(Client.json(late).get("code").asInt()).as("the unique refund number refuses it").isEqualTo(500);
        assertThat(refunds(database, refundNo)).isEqualTo(1);
    }

    private ScratchDatabase database() {
        ScratchDatabase database = ScratchDatabase.postgres();
        databases.add(database);
        return database;
    }

    /** Starts a service that stops after the commit of refund {@code refundNo}, sends it, and kills the service there. */
    private HttpResponse<String> killedAfterCommit(ScratchDatabase database, List<String> settings, String refundNo)
            throws Exception {
        int port = start(database, settings, true);
        Process service = processes.get(processes.size() - 1);
        Client client = new Client("http://127.0.0.1:" + port);
        CompletableFuture<HttpResponse<String>> answer = CompletableFuture.supplyAsync(() -> {
            try {
                return client.post("alice", "/refunds", Client.refund(refundNo));
            } catch (IllegalStateException connectionClosed) {
                return null;
            }
        });
        Path log = log(port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.readString(log).contains(RefundService.COMMITTED_MARK + refundNo)) {
            assertThat(System.nanoTime()).as("the refund committed").isLessThan(deadline);
            Thread.sleep(50);
        }
        service.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        return answer.get(30, TimeUnit.SECONDS);
    }

    private int start(ScratchDatabase database, List<String> settings, boolean pauseAfterCommit) throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m", "-cp", System.getProperty("java.class.path"), OrderServiceApplication.class.getName(),
                "--server.port=" + port, "--spring.datasource.url=" + database.url(),
                "--spring.datasource.username=" + database.user(), "--spring.sql.init.platform=" + database.platform(),
                "--orders.pause-after-commit=" + pauseAfterCommit));
        command.addAll(settings);
        Path log = log(port);
        Files.createDirectories(log.getParent());
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile())).start();
        processes.add(process);
        Client client = new Client("http://127.0.0.1:" + port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            assertThat(process.isAlive()).as("the service is running; see " + log).isTrue();
            try {
                if (client.get("/actuator/health").statusCode() == 200) {
                    return port;
                }
            } catch (IllegalStateException notYet) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("the service did not start within 120 s; see " + log);
    }

    private static Path log(int port) {
        return Path.of("target", "killed-service-" + port + ".log");
    }

    private static long refunds(ScratchDatabase database, String refundNo) {
        return database.count("SELECT count(*) FROM refunds WHERE refund_no = '" + refundNo + "'");
    }

    private static int executions(Client client) {
        return Client.json(client.get("/stats", "alice")).get("data").get("refundExecutions").asInt();
    }

}
