package io.onlyonce.verify.check;

import io.onlyonce.verify.history.History;
import java.util.ArrayList;
import java.util.List;

/**
 * The checkers of a history, in the order the README lists them, and running them all.
 */
public final class Checks {

    private Checks() {
    }

    /** Every checker: at-most-once, acknowledged, replay, fingerprint, unknown, stock, messages, payments, liveness. */
    public static List<Checker> all() {
        return List.of(new AtMostOnceChecker(), new AcknowledgedChecker(), new ReplayChecker(), new FingerprintChecker(),
                new UnknownChecker(), new StockChecker(), new MessagesChecker(), new PaymentsChecker(), new LivenessChecker());
    }

    /** Runs every checker on {@code history}, in order. */
    public static List<CheckResult> run(History history) {
        List<CheckResult> results = new ArrayList<>();
        for (Checker checker : all()) {
            results.add(checker.check(history));
        }
        return results;
    }
}
