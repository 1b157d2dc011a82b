package io.onlyonce.spring.testapp;

import io.onlyonce.spring.Idempotent;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/** Endpoints that count their executions, so tests can assert how often a method really ran. */
@RestController
public class OrderController {

    /**
     * An order request.
     *
     * @param item what to buy
     * @param quantity how many
     * @param businessId the client's id of this purchase intent
     */
    public record OrderRequest(String item, int quantity, String businessId) {
    }

    /**
     * A created order.
     *
     * @param id its number
     * @param item what was bought
     * @param quantity how many
     */
    public record Order(int id, String item, int quantity) {
    }

    /** The retention of {@code /orders/brief} and the lease of {@code /orders/takeover}. */
    public static final java.time.Duration BRIEF = java.time.Duration.ofSeconds(2);

    private final AtomicInteger sequence = new AtomicInteger();
    private final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();
    private volatile CountDownLatch gate = new CountDownLatch(0);

    public int executions(String endpoint) {
        return executions.getOrDefault(endpoint, new AtomicInteger()).get();
    }

    public void reset() {
        executions.clear();
        gate = new CountDownLatch(0);
    }

    /** Makes {@code /orders/slow} wait until {@link #open()}. */
    public void close() {
        gate = new CountDownLatch(1);
    }

    public void open() {
        gate.countDown();
    }

    private int count(String endpoint) {
        return executions.computeIfAbsent(endpoint, e -> new AtomicInteger()).incrementAndGet();
    }

    @PostMapping("/orders")
    @Idempotent
    public ResponseEntity<Order> create(@RequestBody OrderRequest request) {
        count("orders");
        if (request.quantity() <= 0) {
            throw new ResponseStatusException(org.springframework.http.HttpStatusCode.valueOf(422), "quantity must be positive");
        }
        Order order = new Order(sequence.incrementAndGet(), request.item(), request.quantity());
        return ResponseEntity.created(URI.create("/orders/" + order.id())).body(order);
    }

    @PostMapping("/orders/by-business-id")
    @Idempotent(key = "#request.businessId")
    public ResponseEntity<Order> createByBusinessId(@RequestBody OrderRequest request) {
        count("by-business-id");
        Order order = new Order(sequence.incrementAndGet(), request.item(), request.quantity());
        return ResponseEntity.status(HttpStatus.CREATED).body(order);
    }

    @PostMapping("/orders/slow")
    @Idempotent
    public Order slow(@RequestBody OrderRequest request) throws InterruptedException {
        count("slow");
        gate.await(30, TimeUnit.SECONDS);
        return new Order(sequence.incrementAndGet(), request.item(), request.quantity());
    }

    @PostMapping("/orders/brief")
    @Idempotent(retention = "2s")
    public ResponseEntity<Order> brief(@RequestBody OrderRequest request) {
        count("brief");
        Order order = new Order(sequence.incrementAndGet(), request.item(), request.quantity());
        return ResponseEntity.status(HttpStatus.CREATED).body(order);
    }

    /** The first call waits for {@link #open()}; later calls answer at once (lease takeover). */
    @PostMapping("/orders/takeover")
    @Idempotent(lease = "2s")
    public Order takeover(@RequestBody OrderRequest request) throws InterruptedException {
        if (count("takeover") == 1) {
            gate.await(30, TimeUnit.SECONDS);
        }
        return new Order(sequence.incrementAndGet(), request.item(), request.quantity());
    }

    /** Answers 503 the first time (not an exception), then 201. */
    @PostMapping("/orders/{id}/unavailable")
    @Idempotent
    public ResponseEntity<Order> unavailable(@PathVariable int id) {
        int n = count("unavailable");
        if (n == 1) {
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).build();
        }
        return ResponseEntity.status(HttpStatus.CREATED).body(new Order(id, "after-503", n));
    }

    /** Answers a business 409 the first time ("try again" statuses are not stored), then 200. */
    @PostMapping("/orders/{id}/busy")
    @Idempotent
    public ResponseEntity<Map<String, Object>> busy(@PathVariable int id) {
        int n = count("busy");
        if (n == 1) {
            return ResponseEntity.status(HttpStatus.CONFLICT).body(Map.of("error", "busy", "attempt", n));
        }
        return ResponseEntity.ok(Map.of("id", id, "attempt", n));
    }

    @PostMapping("/orders/{id}/fail")
    @Idempotent
    public Order fail(@PathVariable int id) {
        int n = count("fail");
        if (n == 1) {
            throw new IllegalStateException("database connection reset at 10.0.0.7:5432");
        }
        return new Order(id, "retried", n);
    }

    @PostMapping("/orders/{id}/reject")
    @Idempotent
    public ResponseEntity<Map<String, Object>> reject(@PathVariable int id) {
        int n = count("reject");
        return ResponseEntity.status(HttpStatus.NOT_FOUND).body(Map.of("error", "order " + id + " not found", "attempt", n));
    }

    @PostMapping("/seckill")
    @Idempotent(strategy = Idempotent.Strategy.TOKEN, scope = "seckill")
    public ResponseEntity<Order> seckill(@RequestBody OrderRequest request) {
        count("seckill");
        Order order = new Order(sequence.incrementAndGet(), request.item(), request.quantity());
        return ResponseEntity.status(HttpStatus.CREATED).body(order);
    }

    @PostMapping("/activities/{activityId}/orders")
    @Idempotent(strategy = Idempotent.Strategy.TOKEN, scope = "activity:{activityId}")
    public ResponseEntity<Order> activityOrder(@PathVariable long activityId, @RequestBody OrderRequest request) {
        count("activity-" + activityId);
        Order order = new Order(sequence.incrementAndGet(), request.item(), request.quantity());
        return ResponseEntity.status(HttpStatus.CREATED).body(order);
    }

    @PostMapping("/seckill/fragile")
    @Idempotent(strategy = Idempotent.Strategy.TOKEN, scope = "seckill")
    public Order fragile(@RequestBody OrderRequest request) {
        if (count("fragile") == 1) {
            throw new IllegalStateException("first attempt fails");
        }
        return new Order(sequence.incrementAndGet(), request.item(), request.quantity());
    }

    @PostMapping("/seckill/flaky")
    @Idempotent(strategy = Idempotent.Strategy.TOKEN, scope = "seckill", onFailure = Idempotent.FailureMode.RETRYABLE)
    public Order flaky(@RequestBody OrderRequest request) {
        if (count("flaky") == 1) {
            throw new IllegalStateException("first attempt fails");
        }
        return new Order(sequence.incrementAndGet(), request.item(), request.quantity());
    }
}
