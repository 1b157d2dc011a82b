package io.onlyonce.spring.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.spring.Http;
import io.onlyonce.spring.Idempotent;
import io.onlyonce.spring.OnlyOnceConfigurationException;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.core.MethodParameter;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.ServerHttpRequest;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyAdvice;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * On PostgreSQL at 127.0.0.1:5432, each case in a database of its own: OnlyOnce's tables missing
 * fail start-up with the table and both ways to create it, and an outbox that cannot record its
 * message is answered 503 {@code outbox-unavailable}, past the application's result wrapper and its
 * global exception handler, with the business change rolled back.
 */
@ExtendWith(OutputCaptureExtension.class)
class MissingTablesAndFailingOutboxIT {

    static final String SERVER = "jdbc:postgresql://127.0.0.1:5432/";
    static final JsonMapper JSON = JsonMapper.builder().build();

    private final List<String> databases = new ArrayList<>();
    private @Nullable ConfigurableApplicationContext running;

    /** A result wrapper as yudao's {@code CommonResult}. */
    public record CommonResult(int code, String msg, @Nullable Object data) {
    }

    /**
     * The application's result wrapper: {"code":0,"msg":"ok","data":...} around every body, and every
     * exception answered 200 {"code":500}, ordered before every other advice.
     */
    @RestControllerAdvice
    @Order(Ordered.HIGHEST_PRECEDENCE)
    static class WrapEverything implements ResponseBodyAdvice<Object> {
        @Override
        public boolean supports(MethodParameter returnType, Class<? extends HttpMessageConverter<?>> converterType) {
            return true;
        }

        @Override
        public Object beforeBodyWrite(@Nullable Object body, MethodParameter returnType, MediaType contentType,
                Class<? extends HttpMessageConverter<?>> converterType, ServerHttpRequest request,
                ServerHttpResponse response) {
            return body instanceof CommonResult ? body : new CommonResult(0, "ok", body);
        }

        @ExceptionHandler(Exception.class)
        @ResponseStatus(HttpStatus.OK)
        CommonResult failed(Exception e) {
            return new CommonResult(500, "system error", null);
        }
    }

    @Service
    static class Orders {
        private final AtomicInteger placed = new AtomicInteger();
        private final JdbcTemplate jdbc;
        private final TransactionalOutbox outbox;

        Orders(DataSource dataSource, TransactionalOutbox outbox) {
            this.jdbc = new JdbcTemplate(dataSource);
            this.outbox = outbox;
        }

        public int placed() {
            return placed.get();
        }

        @Transactional
        public Map<String, String> place(String orderNo) {
            placed.incrementAndGet();
            jdbc.update("INSERT INTO shop_orders (order_no) VALUES (?)", orderNo);
            outbox.record(new OutboxMessage(OutboxMessage.id(orderNo, "placed"), "orders", "order.placed",
                    "{\"orderNo\":\"" + orderNo + "\"}", Map.of()));
            return Map.of("orderNo", orderNo);
        }
    }

    @RestController
    static class OrderController {
        private final Orders orders;

        OrderController(Orders orders) {
            this.orders = orders;
        }

        @PostMapping("/orders")
        @Idempotent
        Map<String, String> create(@RequestBody Map<String, String> request) {
            return orders.place(request.get("orderNo"));
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({WrapEverything.class, Orders.class, OrderController.class})
    static class Shop {
    }

    @AfterEach
    void stopAndDrop() throws SQLException {
        if (running != null) {
            running.close();
        }
        for (String database : databases) {
            admin("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        }
    }

    @Test
    void withoutTheMessagingTablesStartUpFailsNamingThemAndBothWaysToCreateThem(CapturedOutput output) throws SQLException {
        Throwable failure = catchThrowable(() -> start(newDatabase()));

        assertThat(failure).hasRootCauseInstanceOf(OnlyOnceConfigurationException.class);
        OnlyOnceConfigurationException refusal = (OnlyOnceConfigurationException) rootCause(failure);
        assertThat(refusal.description()).isEqualTo("The tables onlyonce_message_log, onlyonce_inbox of OnlyOnce's"
                + " message layer (outbox and inbox) do not exist in the application's PostgreSQL database.");
        assertThat(refusal.action()).contains("classpath:db/onlyonce-messaging/postgresql")
                .contains("db/onlyonce-messaging/postgresql/V1__onlyonce_messaging.sql")
                .contains("onlyonce.messaging.initialize-schema=always");
        assertThat(output).contains("APPLICATION FAILED TO START").contains("onlyonce.messaging.initialize-schema=always");
    }

    @Test
    void withoutTheJdbcStoresTablesStartUpFailsNamingThemAndBothWaysToCreateThem() throws SQLException {
        String database = newDatabase();
        Throwable failure = catchThrowable(() -> start(database, "--onlyonce.store=jdbc",
                "--onlyonce.messaging.initialize-schema=always"));

        OnlyOnceConfigurationException refusal = (OnlyOnceConfigurationException) rootCause(failure);
        assertThat(refusal.description()).isEqualTo("The tables onlyonce_idempotency, onlyonce_token, onlyonce_window"
                + " of OnlyOnce's JDBC store (onlyonce.store=jdbc) do not exist in the application's PostgreSQL database.");
        assertThat(refusal.action()).contains("classpath:db/onlyonce/postgresql")
                .contains("onlyonce.jdbc.initialize-schema=always");
    }

    @Test
    void anOutboxThatCannotRecordIsAnswered503PastTheResultWrapperAndExceptionHandlerAndNothingIsCommitted() throws SQLException {
        String database = newDatabase();
        running = start(database, "--onlyonce.messaging.initialize-schema=always");
        JdbcTemplate jdbc = new JdbcTemplate(running.getBean(DataSource.class));
        jdbc.execute("CREATE TABLE shop_orders (order_no VARCHAR(64) PRIMARY KEY)");
        jdbc.execute("ALTER TABLE onlyonce_message_log RENAME TO onlyonce_message_log_gone");
        Http http = new Http(((WebServerApplicationContext) running).getWebServer().getPort());
        String key = UUID.randomUUID().toString();

        HttpResponse<String> english = http.send(http.post("/orders", null, "{\"orderNo\":\"o-1\"}")
                .header("Idempotency-Key", key));
        HttpResponse<String> chinese = http.send(http.post("/orders", null, "{\"orderNo\":\"o-1\"}")
                .header("Idempotency-Key", key).header("Accept-Language", "zh-CN"));

        for (HttpResponse<String> response : List.of(english, chinese)) {
            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(response.headers().firstValue("Retry-After")).hasValue("5");
            assertThat(response.headers().firstValue("Idempotent-Replayed")).isEmpty();
            JsonNode problem = JSON.readTree(response.body());
            assertThat(problem.get("type").asString()).isEqualTo("urn:onlyonce:problem:outbox-unavailable");
            assertThat(problem.get("status").asInt()).isEqualTo(503);
            assertThat(problem.has("code")).as("not wrapped: %s", response.body()).isFalse();
            assertThat(response.body()).doesNotContain("onlyonce_message_log").doesNotContainIgnoringCase("sql");
        }
        assertThat(JSON.readTree(english.body()).get("title").asString()).isEqualTo("Service temporarily unavailable");
        assertThat(JSON.readTree(english.body()).get("detail").asString())
                .isEqualTo("The request could not be completed right now, so nothing was changed."
                        + " Retry it after the time given in Retry-After.");
        assertThat(JSON.readTree(chinese.body()).get("title").asString()).isEqualTo("服务暂时不可用");
        assertThat(running.getBean(Orders.class).placed()).as("the key was freed: the retry ran again").isEqualTo(2);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM shop_orders", Integer.class)).isZero();

        jdbc.execute("ALTER TABLE onlyonce_message_log_gone RENAME TO onlyonce_message_log");
        HttpResponse<String> recovered = http.send(http.post("/orders", null, "{\"orderNo\":\"o-1\"}")
                .header("Idempotency-Key", key));
        assertThat(recovered.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(recovered.body()).get("data").get("orderNo").asString()).isEqualTo("o-1");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM shop_orders", Integer.class)).isOne();
    }

    private ConfigurableApplicationContext start(String database, String... arguments) {
        List<String> all = new ArrayList<>(List.of("--server.port=0",
                "--spring.datasource.url=" + SERVER + database, "--spring.datasource.username=postgres",
                "--spring.datasource.password=", "--onlyonce.principal-required=false",
                "--onlyonce.messaging.relay.poll-interval=200ms",
                "--spring.autoconfigure.exclude="
                        + "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration,"
                        + "org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration,"
                        + "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration,"
                        + "org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration,"
                        + "org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration"));
        all.addAll(List.of(arguments));
        return new SpringApplicationBuilder(Shop.class).run(all.toArray(String[]::new));
    }

    private String newDatabase() throws SQLException {
        String database = "oo_tables_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        admin("CREATE DATABASE " + database);
        databases.add(database);
        return database;
    }

    private static Throwable rootCause(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    private static void admin(String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection(SERVER + "postgres", "postgres", "");
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
