package io.onlyonce.spring.reactive;

import static io.onlyonce.spring.reactive.ReactiveIdempotentHttpTest.assertInProgressOrReplayed;
import static io.onlyonce.spring.reactive.ReactiveIdempotentHttpTest.request;
import static io.onlyonce.spring.reactive.ReactiveIdempotentHttpTest.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import io.onlyonce.fixtures.Postgres;
import io.onlyonce.spring.reactive.app.ReactiveTestApplication;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * WebFlux on the JDBC store (PostgreSQL at 127.0.0.1:5432, a database of its own): a store that
 * blocks is called on Reactor's bounded elastic scheduler, never on the event loop, and the HTTP
 * contract holds.
 */
@DirtiesContext
@SpringBootTest(classes = {ReactiveTestApplication.class, ReactivePostgresIdempotentHttpIT.StoreThreads.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.main.web-application-type=reactive", "onlyonce.store=jdbc",
            "onlyonce.jdbc.initialize-schema=always", "onlyonce.messaging.enabled=false"})
class ReactivePostgresIdempotentHttpIT {

    static final String DATABASE = "oo_webflux_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private static final HttpClient CLIENT = HttpClient.newHttpClient();
    private static final Set<String> THREADS = ConcurrentHashMap.newKeySet();

    @LocalServerPort
    int port;
    @Autowired
    ReactiveTestApplication.Executions executions;
    @Autowired
    JdbcTemplate jdbc;

    @DynamicPropertySource
    static void postgres(DynamicPropertyRegistry registry) throws SQLException {
        Postgres.admin("CREATE DATABASE " + DATABASE);
        registry.add("spring.datasource.url", () -> Postgres.SERVER + DATABASE);
        registry.add("spring.datasource.username", () -> "postgres");
        registry.add("spring.datasource.password", () -> "");
    }

    @AfterAll
    static void dropDatabase() throws SQLException {
        Postgres.admin("DROP DATABASE IF EXISTS " + DATABASE + " WITH (FORCE)");
    }

    @Test
    void parallelIdenticalRequestsRunOnceWithEveryStoreCallOffTheEventLoop() {
        String key = UUID.randomUUID().toString();
        List<CompletableFuture<HttpResponse<byte[]>>> sent = IntStream.range(0, 20)
                .mapToObj(i -> CLIENT.sendAsync(post(key, "{\"item\":\"book\"}"), HttpResponse.BodyHandlers.ofByteArray()))
                .toList();
        List<HttpResponse<byte[]>> responses = sent.stream().map(CompletableFuture::join).toList();
        assertThat(executions.of("orders")).isEqualTo(1);
        byte[] answer = jdbc.queryForObject("SELECT response_body FROM onlyonce_idempotency WHERE idem_key = ?",
                byte[].class, key);
        assertInProgressOrReplayed(responses, answer);
        assertThat(jdbc.queryForObject("SELECT status FROM onlyonce_idempotency WHERE idem_key = ?", String.class, key))
                .isEqualTo("C");
        assertThat(THREADS).isNotEmpty().allSatisfy(thread -> assertThat(thread).startsWith("boundedElastic"));
        assertThat(text(CLIENT.sendAsync(post(key, "{\"item\":\"pen\"}"), HttpResponse.BodyHandlers.ofByteArray()).join()))
                .contains("idempotency-key-reused");
    }

    private HttpRequest post(String key, String json) {
        return request(port, "/orders", "alice", key, json).build();
    }

    /** Notes the thread of every call to the application's (blocking) store. */
    @TestConfiguration
    static class StoreThreads {
        @Bean
        static BeanPostProcessor storeThreads() {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String name) {
                    if (!(bean instanceof IdempotencyStore store) || !name.equals("onlyOnceIdempotencyStore")) {
                        return bean;
                    }
                    return new IdempotencyStore() {
                        @Override
                        public ClaimResult claim(IdempotencyKey key, Fingerprint fingerprint, Duration lease) {
                            THREADS.add(Thread.currentThread().getName());
                            return store.claim(key, fingerprint, lease);
                        }

                        @Override
                        public boolean complete(IdempotencyKey key, OwnerToken owner, @Nullable StoredResponse response,
                                Duration retention) {
                            THREADS.add(Thread.currentThread().getName());
                            return store.complete(key, owner, response, retention);
                        }

                        @Override
                        public boolean release(IdempotencyKey key, OwnerToken owner) {
                            THREADS.add(Thread.currentThread().getName());
                            return store.release(key, owner);
                        }

                        @Override
                        public Optional<IdempotencyRecord> find(IdempotencyKey key) {
                            THREADS.add(Thread.currentThread().getName());
                            return store.find(key);
                        }
                    };
                }
            };
        }
    }
}
