package io.onlyonce.verify.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.assertj.core.groups.Tuple;

/**
 * Exact assertions on a check's anomalies: check, kind, subject and op indexes, in order.
 */
final class Expect {

    private Expect() {
    }

    /** An expected anomaly of {@code check}. */
    static Tuple anomaly(String check, String kind, String subject, long... ops) {
        List<Long> list = new ArrayList<>();
        for (long op : ops) {
            list.add(op);
        }
        return Tuple.tuple(check, kind, subject, list);
    }

    static void exactly(CheckResult result, Tuple... expected) {
        assertThat(result.anomalies())
                .extracting(Anomaly::check, Anomaly::kind, Anomaly::subject, Anomaly::ops)
                .containsExactly(expected);
        assertThat(result.valid()).isEqualTo(expected.length == 0);
        result.anomalies().forEach(a -> assertThat(a.message()).isNotBlank());
    }
}
