package io.onlyonce.example.orders;

import io.onlyonce.spring.Idempotent;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Refunds, once per refund number: {@code @Idempotent} on the {@code @Transactional} service
 * method, keyed by the client's business key. Within a request the caller's name is part of the
 * key's scope, so one user never receives another's stored refund.
 */
@Service
public class RefundService {

    /** Printed, for a test that kills the service there, once a refund marked "pause-" committed. */
    public static final String COMMITTED_MARK = "ORDERS-TEST COMMITTED ";

    /** The owner of a refund the payment platform notified. */
    public static final String PLATFORM = "payment-platform";

    private final Refunds refunds;
    private final boolean pauseAfterCommit;
    private final AtomicInteger executions = new AtomicInteger();

    RefundService(Refunds refunds, @Value("${orders.pause-after-commit:false}") boolean pauseAfterCommit) {
        this.refunds = refunds;
        this.pauseAfterCommit = pauseAfterCommit;
    }

    @Idempotent(key = "#request.refundNo")
    @Transactional
    public Refund refund(RefundRequest request, String owner) {
        executions.incrementAndGet();
        Refund refund = refunds.insert(request.refundNo(), request.orderId(), request.amountCents(), owner);
        work(request.workMillis());
        if (pauseAfterCommit && request.refundNo().startsWith("pause-")) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    // the business data is committed; OnlyOnce's completion has not been sent yet
                    // unless it was part of the transaction: a test kills the service here
                    System.out.println(COMMITTED_MARK + request.refundNo());
                    System.out.flush();
                    work(Long.MAX_VALUE);
                }
            });
        }
        return refund;
    }

    /**
     * A refund the payment platform notified, once per refund number whoever relays the notice (an
     * operator's console, a reconciliation job): the number is the platform's, global by nature, so
     * the caller is not part of the key's scope, and a second relay of the same notice is given the
     * refund the first one made.
     */
    @Idempotent(key = "#request.refundNo", perPrincipal = false)
    @Transactional
    public Refund refundNotified(RefundRequest request) {
        executions.incrementAndGet();
        return refunds.insert(request.refundNo(), request.orderId(), request.amountCents(), PLATFORM);
    }

    /** How many times a refund ran in this instance. */
    public int executions() {
        return executions.get();
    }

    static void work(long millis) {
        if (millis <= 0) {
            return;
        }
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
