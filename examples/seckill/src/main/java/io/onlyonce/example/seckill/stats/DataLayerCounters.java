package io.onlyonce.example.seckill.stats;

import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import org.springframework.stereotype.Component;

/**
 * Counts what the data layer stopped, through the OnlyOnce starter's statistics, so the last line
 * of defence shows up next to the others: in {@code GET /api/stats}, {@code /actuator/onlyonce} and
 * the Micrometer counter {@code onlyonce.requests{layer="data", outcome=..., endpoint=...}}.
 */
@Component
public class DataLayerCounters {

    public static final String LAYER = "data";
    /** A business id the idempotency store no longer knew, caught by {@code orders.business_id} UNIQUE. */
    public static final String DUPLICATE_BUSINESS_ID = "duplicate_business_id";
    /** A second live flash-sale order of one user, caught by {@code orders.live_key} UNIQUE. */
    public static final String LIVE_ORDER_CONFLICT = "live_order_conflict";
    /** The optimistic-lock stock UPDATE changed no row. */
    public static final String SOLD_OUT = "sold_out";
    /** A payment notification already recorded ({@code tradeNo + "_pay_callback"}): a repeat of one payment. */
    public static final String REPEATED_PAYMENT_CALLBACK = "repeated_payment_callback";
    /** A further, distinct payment of an order already paid: recorded once, to be refunded. */
    public static final String SECOND_PAYMENT_REFUNDED = "second_payment_refunded";
    /** A cancel of an order already cancelled (the state machine's UPDATE changed no row). */
    public static final String REPEATED_CANCEL = "repeated_cancel";
    /** A payment that arrived after the order was cancelled, recorded once, to be refunded. */
    public static final String PAYMENT_FOR_CANCELLED_ORDER = "payment_for_cancelled_order";

    private final OnlyOnceStatistics statistics;

    public DataLayerCounters(OnlyOnceStatistics statistics) {
        this.statistics = statistics;
    }

    public void record(String outcome, String endpoint) {
        statistics.record(LAYER, outcome, endpoint);
    }
}
