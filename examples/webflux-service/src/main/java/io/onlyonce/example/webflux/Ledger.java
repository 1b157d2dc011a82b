package io.onlyonce.example.webflux;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Mono;

/** The side effects: each payment and refund takes a number, so a second execution would show. */
@Service
public class Ledger {

    private final AtomicLong payments = new AtomicLong();
    private final AtomicLong refunds = new AtomicLong();

    /** Books a payment after a short call to the payment provider. */
    public Mono<Payment> pay(String user, PaymentRequest request) {
        return Mono.delay(Duration.ofMillis(200))
                .map(tick -> new Payment(payments.incrementAndGet(), user, request.orderId(), request.amount()));
    }

    public Mono<Refund> refund(RefundRequest request) {
        return Mono.fromSupplier(() -> new Refund(refunds.incrementAndGet(), request.paymentId(), request.amount()));
    }

    public long payments() {
        return payments.get();
    }

    public long refunds() {
        return refunds.get();
    }
}
