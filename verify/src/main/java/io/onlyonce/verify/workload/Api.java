package io.onlyonce.verify.workload;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The seckill API over real HTTP, through the gateway or through the lossy proxy in front of it,
 * with a client's timeout (10 s) as users' HTTP clients have.
 */
public final class Api {

    static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(3)).build();
    private final String gateway;
    private final String lossy;
    private final String paymentSecret;

    public Api(String gateway, String lossy, String paymentSecret) {
        this.gateway = gateway;
        this.lossy = lossy;
        this.paymentSecret = paymentSecret;
    }

    /** POST {@code path} with a JSON body and header pairs; {@code viaLossy} sends it through the lossy proxy. */
    public Answer post(String path, String bearer, String body, boolean viaLossy, String... headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create((viaLossy ? lossy : gateway) + path))
                .timeout(TIMEOUT)
                .POST(body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .header("Accept", "application/json, application/problem+json");
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        if (bearer != null) {
            request.header("Authorization", "Bearer " + bearer);
        }
        for (int i = 0; i + 1 < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return send(request);
    }

    public Answer get(String path, String bearer) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(gateway + path)).timeout(TIMEOUT).GET()
                .header("Accept", "application/json, application/problem+json");
        if (bearer != null) {
            request.header("Authorization", "Bearer " + bearer);
        }
        return send(request);
    }

    /** The payment platform's signature of {@code body} (HMAC-SHA256, hex), as {@code X-Signature}. */
    public String sign(String body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(paymentSecret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(body.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private Answer send(HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        return new Answer(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""),
                response.headers().firstValue("Idempotent-Replayed").map("true"::equalsIgnoreCase).orElse(false),
                response.body());
    }
}
