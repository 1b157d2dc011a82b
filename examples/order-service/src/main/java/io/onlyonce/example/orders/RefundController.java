package io.onlyonce.example.orders;

import java.security.Principal;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** The HTTP side; every answer leaves wrapped by {@link UnifiedResults}. */
@RestController
class RefundController {

    private final RefundService refunds;
    private final CheckoutService checkouts;

    RefundController(RefundService refunds, CheckoutService checkouts) {
        this.refunds = refunds;
        this.checkouts = checkouts;
    }

    @PostMapping("/refunds")
    Refund refund(@RequestBody RefundRequest request, Principal principal) {
        return refunds.refund(request, principal.getName());
    }

    @PostMapping("/refund-notices")
    Refund refundNotified(@RequestBody RefundRequest request) {
        return refunds.refundNotified(request);
    }

    @PostMapping("/checkouts")
    Refund checkout(@RequestBody RefundRequest request, Principal principal) {
        return checkouts.checkout(request, principal.getName());
    }

    @GetMapping("/stats")
    Map<String, Integer> stats() {
        return Map.of("refundExecutions", refunds.executions());
    }
}
