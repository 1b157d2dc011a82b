package io.onlyonce.spring.testapp;

import io.onlyonce.spring.Idempotent;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.stereotype.Service;

/** A service (not a web handler) whose methods are idempotent by a business id in their arguments. */
@Service
public class PaymentService {

    /**
     * A payment notification as a broker or a platform delivers it.
     *
     * @param orderNo the order paid
     * @param tradeNo the platform's payment id
     * @param amount what was paid
     */
    public record PaymentEvent(String orderNo, String tradeNo, BigDecimal amount) {
    }

    /**
     * What handling a payment gave.
     *
     * @param orderNo the order
     * @param points points credited
     * @param handledAt when
     * @param lines the ledger lines written
     */
    public record Receipt(String orderNo, long points, Instant handledAt, List<String> lines) {
    }

    private final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();
    private volatile CountDownLatch gate = new CountDownLatch(0);

    public int executions(String orderNo) {
        return executions.getOrDefault(orderNo, new AtomicInteger()).get();
    }

    /** Makes {@link #credit} wait until {@link #open()}. */
    public void close() {
        gate = new CountDownLatch(1);
    }

    public void open() {
        gate.countDown();
    }

    @Idempotent(key = "#event.orderNo + '_paid'")
    public Receipt credit(PaymentEvent event) throws InterruptedException {
        int n = executions.computeIfAbsent(event.orderNo(), k -> new AtomicInteger()).incrementAndGet();
        gate.await(30, TimeUnit.SECONDS);
        return new Receipt(event.orderNo(), event.amount().longValue(), Instant.now(), List.of("credit " + event.tradeNo(), "run " + n));
    }

    @Idempotent(key = "#orderNo + '_shipped'", lease = "2s")
    public void ship(String orderNo) {
        executions.computeIfAbsent(orderNo + "-ship", k -> new AtomicInteger()).incrementAndGet();
    }
}
