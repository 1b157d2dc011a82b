package io.onlyonce.spring.testapp;

import io.onlyonce.spring.Idempotent;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RequestPart;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.multipart.MultipartFile;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

/** Handlers written the way real services write them: headers, sizes, async answers, uploads, raw bodies. */
@RestController
public class EdgeController {

    private final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();
    private volatile CountDownLatch gate = new CountDownLatch(0);

    public int executions(String endpoint) {
        return executions.getOrDefault(endpoint, new AtomicInteger()).get();
    }

    public void reset() {
        executions.clear();
        gate = new CountDownLatch(0);
    }

    /** Makes the asynchronous answers wait until {@link #open()}. */
    public void close() {
        gate = new CountDownLatch(1);
    }

    public void open() {
        gate.countDown();
    }

    private int count(String endpoint) {
        return executions.computeIfAbsent(endpoint, e -> new AtomicInteger()).incrementAndGet();
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The names of the request attributes OnlyOnce set while the method runs (KEY and TOKEN strategies). */
    @PostMapping("/edge/attributes")
    @Idempotent
    public java.util.List<String> attributes(jakarta.servlet.http.HttpServletRequest request) {
        return ours(request);
    }

    @PostMapping("/edge/attributes-token")
    @Idempotent(strategy = Idempotent.Strategy.TOKEN)
    public java.util.List<String> attributesOfATokenRequest(jakarta.servlet.http.HttpServletRequest request) {
        return ours(request);
    }

    private static java.util.List<String> ours(jakarta.servlet.http.HttpServletRequest request) {
        return java.util.Collections.list(request.getAttributeNames()).stream()
                .filter(name -> name.startsWith("io.onlyonce."))
                .sorted()
                .toList();
    }

    /** A 201 with a pagination Link header longer than 64 KiB. */
    @PostMapping("/edge/link")
    @Idempotent
    public ResponseEntity<Map<String, Object>> link() {
        int n = count("link");
        String link = "</edge/link?cursor=" + "c".repeat(70_000) + ">; rel=\"next\"";
        return ResponseEntity.status(HttpStatus.CREATED).header("Link", link).body(Map.of("n", n));
    }

    /** A 201 with the headers a real creation answers with: an id, caching, a location, a cookie, a Vary. */
    @PostMapping("/edge/headers")
    @Idempotent
    public ResponseEntity<Map<String, Object>> headers() {
        int n = count("headers");
        return ResponseEntity.status(HttpStatus.CREATED)
                .header("X-Order-Id", "o-" + n)
                .header(HttpHeaders.CACHE_CONTROL, "no-store")
                .header(HttpHeaders.LOCATION, "/edge/orders/" + n)
                .header(HttpHeaders.SET_COOKIE, "last-order=o-" + n + "; Path=/; HttpOnly")
                .header(HttpHeaders.VARY, "Accept-Language")
                .body(Map.of("n", n));
    }

    /** A body of {@code bytes} bytes. */
    @PostMapping(path = "/edge/large", produces = MediaType.TEXT_PLAIN_VALUE)
    @Idempotent
    public ResponseEntity<String> large(@RequestParam int bytes) {
        int n = count("large");
        return ResponseEntity.status(HttpStatus.CREATED).body(n + "x".repeat(bytes - 1));
    }

    /** A header value that no store can keep. */
    @PostMapping("/edge/control-header")
    @Idempotent
    public ResponseEntity<Map<String, Object>> controlHeader() {
        int n = count("control-header");
        return ResponseEntity.status(HttpStatus.CREATED).header("X-Trace", "a\u0001b").body(Map.of("n", n));
    }

    /** Declared {@code Object}, answers a {@code CompletableFuture} that completes when the gate opens. */
    @PostMapping("/edge/future")
    @Idempotent
    public Object future() {
        int n = count("future");
        CountDownLatch wait = gate;
        return CompletableFuture.supplyAsync(() -> {
            await(wait);
            return Map.of("n", n, "kind", "future");
        });
    }

    @PostMapping("/edge/deferred")
    @Idempotent
    public DeferredResult<ResponseEntity<Map<String, Object>>> deferred() {
        int n = count("deferred");
        CountDownLatch wait = gate;
        DeferredResult<ResponseEntity<Map<String, Object>>> result = new DeferredResult<>(30_000L);
        CompletableFuture.runAsync(() -> {
            await(wait);
            result.setResult(ResponseEntity.status(HttpStatus.CREATED).body(Map.of("n", n, "kind", "deferred")));
        });
        return result;
    }

    @PostMapping("/edge/callable")
    @Idempotent
    public Callable<Map<String, Object>> callable() {
        int n = count("callable");
        CountDownLatch wait = gate;
        return () -> {
            await(wait);
            return Map.of("n", n, "kind", "callable");
        };
    }

    /** Declared {@code Object}, answers a stream: cannot be stored. */
    @PostMapping("/edge/stream")
    @Idempotent
    public Object stream() {
        int n = count("stream");
        StreamingResponseBody body = out -> {
            for (int i = 0; i < 3; i++) {
                out.write(("chunk " + i + " of run " + n + "\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        };
        return body;
    }

    @PostMapping(path = "/edge/upload", consumes = MediaType.MULTIPART_FORM_DATA_VALUE)
    @Idempotent
    public ResponseEntity<Map<String, Object>> upload(@RequestPart("file") MultipartFile file,
            @RequestParam(name = "note", required = false) String note) throws IOException {
        int n = count("upload");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("n", n);
        body.put("name", file.getOriginalFilename());
        body.put("size", file.getSize());
        body.put("sha256", sha256(file.getBytes()));
        body.put("note", note);
        return ResponseEntity.status(HttpStatus.CREATED).body(body);
    }

    /** Reads the raw body itself. */
    @PostMapping("/edge/raw")
    @Idempotent
    public ResponseEntity<Map<String, Object>> raw(InputStream body) throws IOException {
        int n = count("raw");
        byte[] bytes = body.readAllBytes();
        return ResponseEntity.status(HttpStatus.CREATED).body(Map.of("n", n, "length", bytes.length, "sha256", sha256(bytes)));
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
