package io.onlyonce.example.seckill.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A client of the seckill API over real HTTP (JDK HttpClient), as a user would call it. */
public final class Api {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final AtomicLong SEQUENCE = new AtomicLong();
    private static final String ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

    private final HttpClient client;
    private final String base;

    public Api(int port) {
        this.base = "http://127.0.0.1:" + port;
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
    }

    /**
     * A logged-in user.
     *
     * @param token the access token
     * @param userId the numeric id
     * @param username the name
     */
    public record Session(String token, long userId, String username) {
    }

    /**
     * An answer.
     *
     * @param status the HTTP status
     * @param headers the headers
     * @param body the body as text
     */
    public record Response(int status, HttpHeaders headers, String body) {

        public JsonNode json() {
            return JSON.readTree(body);
        }

        /** The problem type's slug ({@code urn:onlyonce:problem:<slug>}), or "" when the body is no problem. */
        public String problem() {
            if (!headers.firstValue("Content-Type").orElse("").startsWith("application/problem+json")) {
                return "";
            }
            String type = json().path("type").asString("");
            return type.substring(type.lastIndexOf(':') + 1);
        }

        public String header(String name) {
            return headers.firstValue(name).orElse(null);
        }

        public String text(String field) {
            return json().path(field).asString(null);
        }

        @Override
        public String toString() {
            return status + " " + body;
        }
    }

    public Session login(String username) {
        Response response = send(request("POST", "/api/login", null, "{\"username\":\"" + username + "\"}"));
        if (response.status() != 200) {
            throw new IllegalStateException("login failed: " + response);
        }
        JsonNode json = response.json();
        return new Session(json.get("accessToken").asString(), json.get("userId").asLong(), json.get("username").asString());
    }

    /** A new business id of {@code session}'s user: u{userId}_{epochMillis}_{6 alnum}. */
    public static String businessId(Session session) {
        StringBuilder suffix = new StringBuilder();
        long n = SEQUENCE.incrementAndGet() * 7919 + ThreadLocalRandom.current().nextInt(1000);
        for (int i = 0; i < 6; i++) {
            suffix.append(ALNUM.charAt((int) (n % ALNUM.length())));
            n /= ALNUM.length();
        }
        return "u" + session.userId() + "_" + System.currentTimeMillis() + "_" + suffix;
    }

    /** A one-time token of {@code session} for {@code activityId}. */
    public String token(Session session, long activityId) {
        Response response = post("/api/seckill/activities/" + activityId + "/tokens", session, null);
        if (response.status() != 201) {
            throw new IllegalStateException("no token: " + response);
        }
        return response.text("token");
    }

    /** POST /api/orders with the business id as Idempotency-Key. */
    public Response order(Session session, String businessId, long productId, int quantity) {
        return post("/api/orders", session, "{\"productId\":" + productId + ",\"quantity\":" + quantity + "}",
                "Idempotency-Key", businessId);
    }

    /** POST /api/seckill/activities/{activityId}/orders with the token. */
    public Response seckill(Session session, long activityId, String token) {
        return post("/api/seckill/activities/" + activityId + "/orders", session, "{\"quantity\":1}",
                "Idempotency-Token", token);
    }

    public Response get(String path, Session session, String... headers) {
        return send(request("GET", path, session, null, headers));
    }

    public Response post(String path, Session session, String body, String... headers) {
        return send(request("POST", path, session, body, headers));
    }

    public HttpRequest.Builder request(String method, String path, Session session, String body, String... headers) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60));
        builder.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        if (body != null) {
            builder.header("Content-Type", "application/json");
        }
        if (session != null) {
            builder.header("Authorization", "Bearer " + session.token());
        }
        for (int i = 0; i + 1 < headers.length; i += 2) {
            builder.setHeader(headers[i], headers[i + 1]);
        }
        return builder;
    }

    public Response send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Response(response.statusCode(), response.headers(), response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
