package io.onlyonce.example.seckill.fastpath;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.example.seckill.SeckillApplication;
import io.onlyonce.example.seckill.scenario.AbstractSafetyScenarios;
import io.onlyonce.example.seckill.support.PostgresAndRedis;
import io.onlyonce.example.seckill.support.TestSecrets;
import java.io.File;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The README's walk-through ({@code scripts/demo.sh}) against the service on the fast path
 * (PostgreSQL and Redis, the {@code redis} profile's default): the flash-sale purchase answers 202
 * and the script follows the reservation to its order; every other step answers as documented.
 */
@SpringBootTest(classes = SeckillApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"seckill.order.sweeper-enabled=false", "seckill.limits.window=1m"})
@ActiveProfiles({"postgres", "redis"})
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class FastPathWalkThroughIT {

    static final PostgresAndRedis SERVERS = PostgresAndRedis.fresh();

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        SERVERS.register(registry);
    }

    @AfterAll
    static void drop() {
        SERVERS.drop();
    }

    @LocalServerPort
    int port;

    @Test
    void theWalkThroughFollowsTheReservationToItsOrder() throws Exception {
        ProcessBuilder builder = new ProcessBuilder("bash",
                AbstractSafetyScenarios.repositoryRoot().resolve("scripts/demo.sh").toString(), "http://127.0.0.1:" + port)
                .redirectErrorStream(true);
        builder.environment().put("SECKILL_PAYMENT_SECRET", TestSecrets.PAYMENT);
        File log = Files.createTempFile("seckill-demo-fast-", ".log").toFile();
        builder.redirectOutput(log);
        Process process = builder.start();
        assertThat(process.waitFor(3, TimeUnit.MINUTES)).as("scripts/demo.sh finished").isTrue();
        String output = Files.readString(log.toPath());
        assertThat(process.exitValue()).as("scripts/demo.sh:%n%s", output).isZero();
        assertThat(output).contains("the fast path answered 202: follow the reservation until it is ORDERED")
                .contains("steps answered as documented");
    }
}
