package io.onlyonce.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.ClientOptions;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.onlyonce.spring.testapp.OrderController;
import io.onlyonce.spring.testapp.TestApplication;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A private {@code redis-server} on a free port that a test kills mid-way (the shared Redis on
 * 6379 is never touched). Lettuce rejects commands while disconnected and times out after one
 * second, so the store fails fast once the server is gone.
 */
@SpringBootTest(classes = TestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(AbstractRedisOutageIT.FailFast.class)
@DirtiesContext
abstract class AbstractRedisOutageIT {

    protected static final String ORDER = "{\"item\":\"phone\",\"quantity\":1,\"businessId\":\"b-1\"}";

    private static Process redis;
    private static int redisPort;

    @TestConfiguration(proxyBeanMethods = false)
    static class FailFast {
        @Bean
        static BeanDefinitionRegistryPostProcessor failFastLettuce() {
            return LettuceCustomizer.named("rejectCommandsWhileDisconnected", builder -> builder.clientOptions(ClientOptions.builder()
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .build()));
        }
    }

    @DynamicPropertySource
    static void privateRedis(DynamicPropertyRegistry registry) throws Exception {
        startRedis();
        registry.add("onlyonce.store", () -> "redis");
        registry.add("onlyonce.redis.key-prefix", () -> "oo-outage:");
        registry.add("spring.data.redis.host", () -> "127.0.0.1");
        registry.add("spring.data.redis.port", () -> redisPort);
        registry.add("spring.data.redis.timeout", () -> "1s");
        registry.add("spring.data.redis.connect-timeout", () -> "1s");
    }

    private static void startRedis() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            redisPort = socket.getLocalPort();
        }
        redis = new ProcessBuilder("redis-server", "--port", Integer.toString(redisPort), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!answersPing()) {
            if (!redis.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("private redis-server did not start on port " + redisPort);
            }
            Thread.sleep(50);
        }
    }

    private static boolean answersPing() {
        try (Socket socket = new Socket("127.0.0.1", redisPort)) {
            socket.setSoTimeout(1000);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] answer = in.readNBytes(7);
            return new String(answer, StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

    /** Kills the private server and waits until it is gone. */
    protected static void killRedis() throws InterruptedException {
        redis.destroyForcibly();
        assertThat(redis.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(answersPing()).isFalse();
    }

    @AfterAll
    static void stopRedis() throws InterruptedException {
        if (redis != null && redis.isAlive()) {
            killRedis();
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    protected OrderController orders;

    @Autowired
    protected MeterRegistry meters;

    @Autowired
    LettuceConnectionFactory redisConnections;

    protected Http http;

    @BeforeEach
    void setUpHttp() {
        assertThat(redisConnections.getClientConfiguration().getClientOptions()).as("Boot's factory got the customizer")
                .hasValueSatisfying(options -> assertThat(options.getDisconnectedBehavior())
                        .isEqualTo(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS));
        http = new Http(port);
        orders.reset();
    }

    protected HttpResponse<String> order() {
        return http.send(http.post("/orders", "alice", ORDER).header("Idempotency-Key", UUID.randomUUID().toString()));
    }

    protected double storeErrors() {
        Counter counter = meters.find("onlyonce.requests")
                .tags("layer", "business", "outcome", "store_error", "endpoint", "POST /orders").counter();
        return counter == null ? 0 : counter.count();
    }

    protected static Duration seconds(long s) {
        return Duration.ofSeconds(s);
    }
}
