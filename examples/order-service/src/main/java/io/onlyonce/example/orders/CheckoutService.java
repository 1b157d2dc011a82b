package io.onlyonce.example.orders;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * A checkout: a transaction of its own around the idempotent refund, which may still fail after
 * the refund returned (a stock check, a coupon): then everything rolls back, the refund included.
 */
@Service
public class CheckoutService {

    private final RefundService refunds;

    CheckoutService(RefundService refunds) {
        this.refunds = refunds;
    }

    @Transactional
    public Refund checkout(RefundRequest request, String owner) {
        Refund refund = refunds.refund(request, owner);
        if (request.failAfter()) {
            throw new IllegalStateException("the checkout failed after its refund");
        }
        return refund;
    }
}
