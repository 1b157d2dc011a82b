package io.onlyonce.example.orders;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A client of the order service, as alice or bob (HTTP basic). */
final class Client {

    static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final String base;

    Client(String base) {
        this.base = base;
    }

    HttpResponse<String> post(String user, String path, String body) {
        return post(user, path, body, "en");
    }

    HttpResponse<String> post(String user, String path, String body, String language) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(60))
                .header("Authorization", "Basic " + Base64.getEncoder()
                        .encodeToString((user + ":" + user + "-pw").getBytes(StandardCharsets.UTF_8)))
                .header("Content-Type", "application/json")
                .header("Accept-Language", language)
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        return send(request);
    }

    HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10)).GET().build());
    }

    HttpResponse<String> get(String path, String user) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Basic " + Base64.getEncoder()
                        .encodeToString((user + ":" + user + "-pw").getBytes(StandardCharsets.UTF_8)))
                .GET().build());
    }

    private static HttpResponse<String> send(HttpRequest request) {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static String refund(String refundNo, long orderId, long amount, long workMillis, boolean failAfter) {
        return "{\"refundNo\":\"" + refundNo + "\",\"orderId\":" + orderId + ",\"amountCents\":" + amount
                + ",\"workMillis\":" + workMillis + ",\"failAfter\":" + failAfter + "}";
    }

    static String refund(String refundNo) {
        return refund(refundNo, 7, 1200, 0, false);
    }

    static JsonNode json(HttpResponse<String> response) {
        return JSON.readTree(response.body());
    }
}
