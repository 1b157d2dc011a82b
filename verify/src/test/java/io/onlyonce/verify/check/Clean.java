package io.onlyonce.verify.check;

import static io.onlyonce.verify.check.FinalState.activityStock;
import static io.onlyonce.verify.check.FinalState.inProgress;
import static io.onlyonce.verify.check.FinalState.inbox;
import static io.onlyonce.verify.check.FinalState.order;
import static io.onlyonce.verify.check.FinalState.outbox;
import static io.onlyonce.verify.check.FinalState.payment;
import static io.onlyonce.verify.check.FinalState.product;
import static io.onlyonce.verify.check.FinalState.queue;
import static io.onlyonce.verify.check.FinalState.redisStock;
import static io.onlyonce.verify.check.FinalState.refund;
import static io.onlyonce.verify.check.FinalState.reservation;
import static io.onlyonce.verify.check.FinalState.shipment;
import static io.onlyonce.verify.check.HistoryBuilder.m;

import io.onlyonce.verify.history.History;
import java.util.List;
import java.util.Map;

/**
 * A run in miniature that every check passes: a lost answer retried and replayed while an instance
 * is killed, a double click of an order and of a purchase, an unknown order never applied, an
 * altered retry refused, a payment whose first answer was lost, a late repeat, a second payment
 * refunded, a cancel, an order refused by the per-product limit, a reservation failed as sold out.
 * Tests change its final read (or add operations) to make one anomaly at a time.
 *
 * <pre>
 *  0 setup                        19 c1 ok purchase t-a R1 (new)
 *  1 c1 invoke order k-a1 (lossy) 20 c4 ok purchase t-a R1 (replayed)
 *  2 c1 info   (answer lost)      21 c2 invoke purchase t-b
 *  3 nemesis kill start           22 c2 ok R2 (new; later FAILED sold-out)
 *  4 c1 invoke order k-a1 #2      23 c1 invoke pay O1 T1
 *  5 c1 ok O1 6.20 (replayed)     24 c1 info (connection reset)
 *  6 c2 invoke order k-b1         25 c1 invoke pay O1 T1 #2
 *  7 c3 invoke order k-b1 (click) 26 c1 ok PAID
 *  8 c2 ok O2 3.10 (new)          27 c1 invoke pay O1 T1 (late)
 *  9 c3 ok O2 3.10 (replayed)     28 c1 ok REPEATED
 * 10 nemesis kill stop            29 c2 invoke pay O3 T3
 * 11 c1 invoke order k-a2         30 c2 ok PAID
 * 12 c1 info (timeout; no order)  31 c2 invoke pay O3 T3b
 * 13 c2 invoke order k-b2         32 c2 ok REFUND
 * 14 c2 ok O3 3.10 (new)          33 c2 invoke cancel O2
 * 15 c2 invoke order k-b2 altered 34 c2 ok CANCELLED
 * 16 c2 fail 422 key reused       35 c3 invoke order k-a3 (p1 x 4)
 * 17 c1 invoke purchase t-a       36 c3 fail 409 product-limit
 * 18 c4 invoke purchase t-a (2)   37 final read
 * </pre>
 */
final class Clean {

    static final long FINAL = 37;

    static final int ALICE = 101;
    static final int BOB = 102;

    private Clean() {
    }

    static Map<String, Object> setup() {
        return m("products", List.of(m("id", 1, "stock", 100, "price", "3.10"), m("id", 2, "stock", 50, "price", "5.00")),
                "activities", List.of(m("id", 7, "productId", 2, "stock", 1, "price", "1.00", "maxUnitsPerUser", 1)),
                "users", List.of(m("name", "alice", "id", ALICE), m("name", "bob", "id", BOB)),
                "leaseMs", 5000, "maxUnitsPerProduct", 5, "seed", 42, "faults", List.of("kill"), "breaks", List.of());
    }

    static Map<String, Object> orderOp(String user, int userId, String key, int productId, int quantity, int attempt) {
        return m("user", user, "userId", userId, "key", key, "productId", productId, "quantity", quantity, "attempt", attempt,
                "altered", false, "lossy", false);
    }

    static Map<String, Object> created(String orderNo, String amount, boolean replayed) {
        return m("status", replayed ? 200 : 201, "orderNo", orderNo, "amount", amount, "replayed", replayed);
    }

    static Map<String, Object> purchase(String user, int userId, int activity, String token, int click) {
        return m("user", user, "userId", userId, "activity", activity, "token", token, "click", click, "attempt", 1);
    }

    static Map<String, Object> reserved(String reservationId, boolean replayed) {
        return m("status", 202, "reservationId", reservationId, "replayed", replayed);
    }

    static Map<String, Object> pay(String orderNo, String tradeNo, String amount, int attempt, boolean late) {
        return m("orderNo", orderNo, "tradeNo", tradeNo, "amount", amount, "attempt", attempt, "late", late);
    }

    /** A pay answer; its outcome is REFUND for a refund or cancel, else PAID (a repeat of a payment that paid). */
    static Map<String, Object> paid(String result) {
        return paid(result, "REFUND".equals(result) || "CANCELLED".equals(result) ? "REFUND" : "PAID");
    }

    static Map<String, Object> paid(String result, String outcome) {
        return m("status", 200, "outcome", outcome, "result", result);
    }

    /** Operations 0 to 36: everything before the final read. */
    static HistoryBuilder builder() {
        Map<String, Object> lossy = orderOp("alice", ALICE, "k-a1", 1, 2, 1);
        lossy.put("lossy", true);
        Map<String, Object> altered = orderOp("bob", BOB, "k-b2", 1, 3, 2);
        altered.put("altered", true);
        return new HistoryBuilder()
                .setup(setup())
                .invoke("c1", "order", lossy)
                .info("c1", m("error", "answer lost"))
                .nemesis("kill", "start", "seckill-1")
                .invoke("c1", "order", orderOp("alice", ALICE, "k-a1", 1, 2, 2))
                .ok("c1", created("O1", "6.20", true))
                .invoke("c2", "order", orderOp("bob", BOB, "k-b1", 1, 1, 1))
                .invoke("c3", "order", orderOp("bob", BOB, "k-b1", 1, 1, 1))
                .ok("c2", created("O2", "3.10", false))
                .ok("c3", created("O2", "3.10", true))
                .nemesis("kill", "stop", "seckill-1")
                .invoke("c1", "order", orderOp("alice", ALICE, "k-a2", 2, 1, 1))
                .info("c1", m("error", "timeout"))
                .invoke("c2", "order", orderOp("bob", BOB, "k-b2", 1, 1, 1))
                .ok("c2", created("O3", "3.10", false))
                .invoke("c2", "order", altered)
                .fail("c2", m("status", 422, "problem", "idempotency-key-reused"))
                .invoke("c1", "purchase", purchase("alice", ALICE, 7, "t-a", 1))
                .invoke("c4", "purchase", purchase("alice", ALICE, 7, "t-a", 2))
                .ok("c1", reserved("R1", false))
                .ok("c4", reserved("R1", true))
                .invoke("c2", "purchase", purchase("bob", BOB, 7, "t-b", 1))
                .ok("c2", reserved("R2", false))
                .invoke("c1", "pay", pay("O1", "T1", "6.20", 1, false))
                .info("c1", m("error", "connection reset"))
                .invoke("c1", "pay", pay("O1", "T1", "6.20", 2, false))
                .ok("c1", paid("PAID"))
                .invoke("c1", "pay", pay("O1", "T1", "6.20", 1, true))
                .ok("c1", paid("REPEATED"))
                .invoke("c2", "pay", pay("O3", "T3", "3.10", 1, false))
                .ok("c2", paid("PAID"))
                .invoke("c2", "pay", pay("O3", "T3b", "3.10", 1, false))
                .ok("c2", paid("REFUND"))
                .invoke("c2", "cancel", m("user", "bob", "userId", BOB, "orderNo", "O2", "attempt", 1))
                .ok("c2", m("status", 200, "orderStatus", "CANCELLED"))
                .invoke("c3", "order", orderOp("alice", ALICE, "k-a3", 1, 4, 1))
                .fail("c3", m("status", 409, "problem", "product-limit"));
    }

    /** The final read every check agrees with. */
    static FinalState state() {
        return new FinalState()
                .add("orders", order("O1", "k-a1", ALICE, 1, null, 2, "6.20", "PAID", "T1"))
                .add("orders", order("O2", "k-b1", BOB, 1, null, 1, "3.10", "CANCELLED", null))
                .add("orders", order("O3", "k-b2", BOB, 1, null, 1, "3.10", "PAID", "T3"))
                .add("orders", order("O4", "rsv_R1", ALICE, 2, 7, 1, "1.00", "UNPAID", null))
                .add("payments", payment("T1", "O1", "6.20", "PAID"))
                .add("payments", payment("T3", "O3", "3.10", "PAID"))
                .add("payments", payment("T3b", "O3", "3.10", "REFUND"))
                .add("refunds", refund("O3", "T3b", "3.10"))
                .add("shipments", shipment("O1", ALICE))
                .add("shipments", shipment("O3", BOB))
                .points("101", "6.20")
                .points("102", "3.10")
                .add("outbox", outbox("O1_paid", "SUCCESS"))
                .add("outbox", outbox("O3_paid", "SUCCESS"))
                .add("inbox", inbox("points", "O1_paid"))
                .add("inbox", inbox("shipping", "O1_paid"))
                .add("inbox", inbox("points", "O3_paid"))
                .add("inbox", inbox("shipping", "O3_paid"))
                .add("reservations", reservation("R1", ALICE, 7, "ORDERED", "O4", null))
                .add("reservations", reservation("R2", BOB, 7, "FAILED", null, "sold-out"))
                .add("products", product(1, 97))
                .add("products", product(2, 50))
                .add("activityStock", activityStock(7, 2, 1, 0))
                .add("redisStock", redisStock(7, 0))
                .add("inProgress", inProgress("k-x", 1000))
                .add("queues", queue("seckill.orders", 0));
    }

    static History history() {
        return with(state());
    }

    /** The clean operations with {@code state} as the final read. */
    static History with(FinalState state) {
        return builder().finalRead(state.value()).build();
    }
}
