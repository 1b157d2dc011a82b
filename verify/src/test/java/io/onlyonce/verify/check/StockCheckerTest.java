package io.onlyonce.verify.check;

import static io.onlyonce.verify.check.Clean.BOB;
import static io.onlyonce.verify.check.Clean.FINAL;
import static io.onlyonce.verify.check.FinalState.order;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

class StockCheckerTest {

    private final Checker checker = new StockChecker();

    private static Tuple anomaly(String kind, String subject, long... ops) {
        return Expect.anomaly("stock", kind, subject, ops);
    }

    @Test
    void aCleanRunPasses() {
        // product 1: 100 = 2 (O1) + 1 (O3) + 97 left, the cancelled O2 gave its unit back; activity 7: 1 = 1 (O4) + 0
        CheckResult result = checker.check(Clean.history());
        Expect.exactly(result);
        assertThat(result.counts()).containsExactly(Map.entry("products", 2L), Map.entry("activities", 1L),
                Map.entry("userProducts", 2L));
    }

    @Test
    void aProductWhoseUnitsDoNotAddUp() {
        FinalState state = Clean.state();
        state.row("products", "id", 1).put("stock", 96);
        Expect.exactly(checker.check(Clean.with(state)), anomaly("stock-not-conserved", "product 1", FINAL));
    }

    @Test
    void aProductMissingFromTheFinalRead() {
        FinalState state = Clean.state().remove("products", "id", 2);
        Expect.exactly(checker.check(Clean.with(state)), anomaly("stock-not-conserved", "product 2", FINAL));
    }

    @Test
    void aSaleWhoseUnitsDoNotAddUp() {
        FinalState state = Clean.state();
        state.row("activityStock", "activityId", 7).put("stock", 1);
        state.row("redisStock", "activityId", 7).put("stock", 1);
        Expect.exactly(checker.check(Clean.with(state)), anomaly("stock-not-conserved", "activity 7", FINAL));
    }

    @Test
    void aSaleSoldBelowZero() {
        FinalState state = Clean.state().add("orders", order("O5", "rsv_R2", BOB, 2, 7, 1, "1.00", "UNPAID", null));
        state.row("activityStock", "activityId", 7).put("stock", -1);
        state.row("redisStock", "activityId", 7).put("stock", -1);
        Expect.exactly(checker.check(Clean.with(state)), anomaly("negative-stock", "activity 7", FINAL));
    }

    @Test
    void redisAndTheDatabaseDisagree() {
        FinalState state = Clean.state();
        state.row("redisStock", "activityId", 7).put("stock", 3);
        Expect.exactly(checker.check(Clean.with(state)), anomaly("redis-drift", "activity 7", FINAL));
    }

    @Test
    void aSaleMissingInRedisDrifted() {
        FinalState state = Clean.state().remove("redisStock", "activityId", 7);
        Expect.exactly(checker.check(Clean.with(state)), anomaly("redis-drift", "activity 7", FINAL));
    }

    @Test
    void aSaleWhoseRedisStockIsNullIsMissingInRedis() {
        FinalState state = Clean.state();
        state.row("redisStock", "activityId", 7).put("stock", null);
        CheckResult result = checker.check(Clean.with(state));
        Expect.exactly(result, anomaly("redis-drift", "activity 7", FINAL));
        assertThat(result.anomalies().get(0).message()).contains("none in Redis");
    }

    @Test
    void withoutTheFastPathThereIsNoRedisStockToCompare() {
        // no redisStock at all: a sale missing from it is not a drift
        FinalState state = Clean.state();
        state.value().remove("redisStock");
        Expect.exactly(checker.check(Clean.with(state)));
    }

    @Test
    void aSaleStartsWithTheStockOfItsSetUp() {
        // the stock row does not say how the sale started: the set-up's 1 = 1 (O4) + 0
        FinalState state = Clean.state();
        state.row("activityStock", "activityId", 7).remove("initialStock");
        Expect.exactly(checker.check(Clean.with(state)));
    }

    @Test
    void aSaleWhoseStockRowDisagreesWithItsSetUp() {
        // set up with 1, the row says 2 and holds 1 (O4) + 1 left: the unit came from nowhere
        FinalState state = Clean.state();
        state.row("activityStock", "activityId", 7).put("initialStock", 2);
        state.row("activityStock", "activityId", 7).put("stock", 1);
        state.row("redisStock", "activityId", 7).put("stock", 1);
        Expect.exactly(checker.check(Clean.with(state)),
                anomaly("stock-not-conserved", "activity 7", FINAL),
                anomaly("stock-not-conserved", "activity 7", FINAL));
    }

    @Test
    void moreUnitsOfAProductThanAUserMayHold() {
        FinalState state = Clean.state();
        state.row("orders", "orderNo", "O1").put("quantity", 6);
        state.row("products", "id", 1).put("stock", 93);
        Expect.exactly(checker.check(Clean.with(state)), anomaly("over-product-limit", "101", FINAL));
    }

    @Test
    void withoutAFinalReadItCannotDecide() {
        Expect.exactly(checker.check(Clean.builder().build()), anomaly("no-final-read", "final read"));
    }
}
