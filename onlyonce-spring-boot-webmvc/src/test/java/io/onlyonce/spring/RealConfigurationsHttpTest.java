package io.onlyonce.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.spring.testapp.EdgeController;
import io.onlyonce.spring.testapp.OrderController;
import io.onlyonce.spring.testapp.TestApplication;
import io.onlyonce.testing.Race;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.MethodParameter;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.ServerHttpRequest;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyAdvice;

/**
 * The starter in an application configured as Spring shops in this field configure theirs: a global
 * "unified result" {@code ResponseBodyAdvice} that wraps every body in {@code {"code":0,"data":...}}
 * and a global exception handler ahead of every other advice (as yudao and RuoYi have), multipart
 * uploads, handlers that read the raw body, an authentication whose name is missing, and token limits.
 */
@SpringBootTest(classes = TestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
    "onlyonce.token.rate-limit.max-requests=5",
    "onlyonce.token.rate-limit.max-live=8",
    "spring.servlet.multipart.max-file-size=2MB",
    "spring.servlet.multipart.max-request-size=3MB",
    "spring.mvc.contentnegotiation.favor-parameter=true"
})
@Import(RealConfigurationsHttpTest.ShopConventions.class)
class RealConfigurationsHttpTest {


    /** A result wrapper as yudao's {@code CommonResult}. */
    public record CommonResult(int code, @Nullable Object data, @Nullable String msg) {
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class ShopConventions {

        /** Wraps every body, whatever its type, the way result wrappers do. */
        @RestControllerAdvice
        static class WrapEverything implements ResponseBodyAdvice<Object> {
            @Override
            public boolean supports(MethodParameter returnType, Class<? extends HttpMessageConverter<?>> converterType) {
                return true;
            }

            @Override
            public Object beforeBodyWrite(@Nullable Object body, MethodParameter returnType, MediaType contentType,
                    Class<? extends HttpMessageConverter<?>> converterType, ServerHttpRequest request,
                    ServerHttpResponse response) {
                return body instanceof CommonResult ? body : new CommonResult(0, body, null);
            }
        }

        /** A global handler ordered before every other advice, answering 200 with an error code. */
        @RestControllerAdvice
        @Order(Ordered.HIGHEST_PRECEDENCE)
        static class GlobalExceptionHandler {
            @ExceptionHandler(Exception.class)
            @ResponseStatus(HttpStatus.OK)
            public CommonResult handle(Exception e) {
                return new CommonResult(500, null, "system error");
            }
        }

        /** Authenticates requests marked {@code X-Nameless} with a principal whose name is missing (a JWT without sub). */
        @Bean
        FilterRegistrationBean<Filter> namelessPrincipal() {
            Filter filter = (request, response, chain) -> {
                HttpServletRequest http = (HttpServletRequest) request;
                if (http.getHeader("X-Nameless") == null) {
                    chain.doFilter(request, response);
                    return;
                }
                chain.doFilter(new HttpServletRequestWrapper(http) {
                    @Override
                    public Principal getUserPrincipal() {
                        return () -> null;
                    }
                }, response);
            };
            FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(filter);
            registration.setOrder(-95);
            return registration;
        }
    }

    static final String ORDER = "{\"item\":\"phone\",\"quantity\":1,\"businessId\":\"b-1\"}";

    @LocalServerPort
    int port;

    @Autowired
    OrderController orders;

    @Autowired
    EdgeController edge;

    @Autowired
    io.onlyonce.spring.testapp.TransactionalController transactional;

    Http http;

    @BeforeEach
    void setUp() {
        http = new Http(port);
        orders.reset();
        edge.reset();
    }

    HttpResponse<String> order(String key) {
        return http.send(http.post("/orders", "alice", ORDER).header("Idempotency-Key", key));
    }

    @Test
    void aReplayIsTheFirstAnswerByteForByteDespiteTheResultWrapper() {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = order(key);
        HttpResponse<String> retry = order(key);
        assertThat(first.statusCode()).isEqualTo(201);
        JsonDoc wrapped = JsonDoc.parse(first.body());
        assertThat(wrapped.get("code").asInt()).as("the application's wrapper applies to the first answer").isZero();
        assertThat(wrapped.get("data").get("item").asString()).isEqualTo("phone");
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(retry.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"));
        assertThat(retry.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
        assertThat(orders.executions("orders")).isEqualTo(1);
    }

    @Test
    void whatTheRequestAcceptsIsReadAsSpringMvcReadsIt() {
        HttpResponse<String> format = http.send(http.post("/orders?format=json", "alice", ORDER)
                .header("Idempotency-Key", UUID.randomUUID().toString()).header("Accept", "text/html"));
        assertThat(format.statusCode()).as("?format=json counts before Accept").isEqualTo(201);
        assertThat(format.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/json"));
        assertThat(orders.executions("orders")).isEqualTo(1);

        HttpResponse<String> html = http.send(http.post("/orders", "alice", ORDER)
                .header("Idempotency-Key", UUID.randomUUID().toString()).header("Accept", "text/html"));
        assertThat(html.statusCode()).isNotEqualTo(201);
        assertThat(orders.executions("orders")).as("the method did not run for text/html").isEqualTo(1);
    }

    @Test
    void aHandlerWhoseTransactionFailsToCommitFreesItsKeyWhateverTheWrapperAnswers() {
        String key = UUID.randomUUID().toString();
        int before = transactional.executions();
        HttpResponse<String> failed = http.send(http.post("/tx/refunds?failCommit=true", "alice", "")
                .header("Idempotency-Key", key));
        assertThat(failed.statusCode()).as("the application's wrapper answers 200").isEqualTo(200);
        assertThat(JsonDoc.parse(failed.body()).get("code").asInt()).isEqualTo(500);
        HttpResponse<String> retry = http.send(http.post("/tx/refunds?failCommit=true", "alice", "")
                .header("Idempotency-Key", key));
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).as("never a replay of rolled-back work").isEmpty();
        assertThat(transactional.executions() - before).as("the retry ran again").isEqualTo(2);
        HttpResponse<String> fixed = http.send(http.post("/tx/refunds", "alice", "").header("Idempotency-Key", key));
        assertThat(JsonDoc.parse(fixed.body()).get("code").asInt()).isZero();
        HttpResponse<String> replay = http.send(http.post("/tx/refunds", "alice", "").header("Idempotency-Key", key));
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(replay.body()).isEqualTo(fixed.body());
        assertThat(transactional.executions() - before).isEqualTo(3);
    }

    @Test
    void refusalsKeepTheirStatusEvenUnderAGlobalExceptionHandler() {
        String key = UUID.randomUUID().toString();
        order(key);
        HttpResponse<String> reused = http.send(http.post("/orders", "alice", "{\"item\":\"laptop\",\"quantity\":1}")
                .header("Idempotency-Key", key));
        assertThat(reused.statusCode()).isEqualTo(422);
        assertThat(reused.headers().firstValue("Content-Type")).hasValueSatisfying(
                t -> assertThat(t).startsWith("application/problem+json"));
        assertThat(JsonDoc.parse(reused.body()).get("type").asString()).isEqualTo("urn:onlyonce:problem:idempotency-key-reused");
        HttpResponse<String> missing = http.send(http.post("/orders", "alice", ORDER));
        assertThat(missing.statusCode()).isEqualTo(400);
        assertThat(missing.body()).contains("idempotency-key-missing");
        assertThat(orders.executions("orders")).isEqualTo(1);
    }

    @Test
    void aBusinessExceptionStillGoesToTheApplicationsHandler() {
        HttpResponse<String> failed = http.send(http.post("/orders/7/fail", "alice", "").header("Idempotency-Key", UUID.randomUUID().toString()));
        assertThat(failed.statusCode()).isEqualTo(200);
        assertThat(JsonDoc.parse(failed.body()).get("code").asInt()).isEqualTo(500);
    }

    static HttpRequest.BodyPublisher multipart(String boundary, String fileName, byte[] content, String note) {
        String head = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\n" + note + "\r\n"
                + "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + fileName
                + "\"\r\nContent-Type: application/octet-stream\r\n\r\n";
        String tail = "\r\n--" + boundary + "--\r\n";
        byte[] headBytes = head.getBytes(StandardCharsets.UTF_8);
        byte[] all = new byte[headBytes.length + content.length + tail.length()];
        System.arraycopy(headBytes, 0, all, 0, headBytes.length);
        System.arraycopy(content, 0, all, headBytes.length, content.length);
        System.arraycopy(tail.getBytes(StandardCharsets.US_ASCII), 0, all, headBytes.length + content.length, tail.length());
        return HttpRequest.BodyPublishers.ofByteArray(all);
    }

    HttpResponse<String> upload(String key, String boundary, byte[] content, String note) {
        return http.send(http.post("/edge/upload", "alice", "").header("Idempotency-Key", key)
                .setHeader("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(multipart(boundary, "report.bin", content, note)));
    }

    static byte[] bytes(int length, long seed) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    @Test
    void multipartUploadsAreFingerprintedByTheirPartsAndTheHandlerReadsThem() {
        String key = UUID.randomUUID().toString();
        byte[] file = bytes(500_000, 1);
        HttpResponse<String> first = upload(key, "b1", file, "first");
        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        assertThat(JsonDoc.parse(first.body()).get("data").get("size").asInt()).isEqualTo(500_000);
        HttpResponse<String> sameFileOtherBoundary = upload(key, "b2", file, "first");
        assertThat(sameFileOtherBoundary.statusCode()).isEqualTo(201);
        assertThat(sameFileOtherBoundary.headers().firstValue("Idempotent-Replayed")).contains("true");
        HttpResponse<String> otherFile = upload(key, "b3", bytes(500_000, 2), "first");
        assertThat(otherFile.statusCode()).as("another file under the same key").isEqualTo(422);
        HttpResponse<String> otherNote = upload(key, "b4", file, "second");
        assertThat(otherNote.statusCode()).as("another field under the same key").isEqualTo(422);
        assertThat(edge.executions("upload")).isEqualTo(1);
    }

    HttpResponse<String> raw(String key, byte[] content) {
        return http.send(http.post("/edge/raw", "alice", "").header("Idempotency-Key", key)
                .setHeader("Content-Type", "application/octet-stream").POST(HttpRequest.BodyPublishers.ofByteArray(content)));
    }

    @Test
    void aHandlerThatReadsTheRawBodyGetsAllOfItAndTheWholeBodyIsFingerprinted() {
        for (int size : List.of(0, 10, 300_000, 1_000_000)) {
            String key = UUID.randomUUID().toString();
            byte[] body = bytes(size, size);
            HttpResponse<String> first = raw(key, body);
            assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
            assertThat(JsonDoc.parse(first.body()).get("data").get("length").asInt()).as("bytes the handler read").isEqualTo(size);
            if (size > 0) {
                byte[] lastDiffers = body.clone();
                lastDiffers[size - 1] ^= 1;
                assertThat(raw(key, lastDiffers).statusCode()).as("differs in the last byte of %d", size).isEqualTo(422);
            }
            assertThat(raw(key, body).headers().firstValue("Idempotent-Replayed")).contains("true");
        }
        assertThat(edge.executions("raw")).isEqualTo(4);
    }

    @Test
    void aPrincipalWithoutANameIsAProblemNeverAServerError() {
        HttpResponse<String> protectedCall = http.send(http.post("/orders", "alice", ORDER)
                .header("Idempotency-Key", UUID.randomUUID().toString()).header("X-Nameless", "1"));
        assertThat(protectedCall.statusCode()).isEqualTo(400);
        assertThat(protectedCall.body()).contains("urn:onlyonce:problem:principal-required");
        HttpResponse<String> token = http.send(http.post("/idempotency/tokens", "alice", "").header("X-Nameless", "1"));
        assertThat(token.statusCode()).isEqualTo(400);
        assertThat(token.body()).contains("urn:onlyonce:problem:principal-required");
        assertThat(orders.executions("orders")).isZero();
    }

    @Test
    void oneCallerCannotFloodTheTokenEndpoint() throws Exception {
        List<HttpResponse<String>> burst = Race.run(50, () -> http.send(http.post("/idempotency/tokens?scope=seckill", "bob", "")));
        List<Integer> statuses = new ArrayList<>(burst.stream().map(HttpResponse::statusCode).toList());
        assertThat(statuses).filteredOn(s -> s == 201).hasSize(5);
        assertThat(burst).filteredOn(r -> r.statusCode() == 429).hasSize(45).allSatisfy(r -> {
            assertThat(r.headers().firstValue("Retry-After")).hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isBetween(1L, 60L));
            assertThat(r.body()).contains("urn:onlyonce:problem:token-rate-limited");
        });
        assertThat(http.send(http.post("/idempotency/tokens?scope=seckill", "alice", "")).statusCode())
                .as("other callers are not affected").isEqualTo(201);
        String issued = JsonDoc.parse(burst.stream().filter(r -> r.statusCode() == 201).findFirst().orElseThrow().body())
                .get("data").get("token").asString();
        assertThat(http.send(http.post("/seckill", "bob", ORDER).header("Idempotency-Token", issued)).statusCode())
                .as("the tokens that were issued work").isEqualTo(201);
    }

    static Map<String, Object> unused() {
        return Map.of();
    }
}
