package io.onlyonce.example.orders;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** The configurations on PostgreSQL, whose deferred constraints make a commit fail after the work returned. */
abstract class AbstractPostgresUserConfigurationIT extends AbstractUserConfigurationIT {

    @Test
    void aRefundWhoseCommitFailsIsNeverReplayedAsASuccess() {
        String refundNo = newRefundNo();
        int before = refundService.executions();
        // order 999999 does not exist: the deferred foreign key fails the commit, after the method returned
        HttpResponse<String> first = client.post("alice", "/refunds", Client.refund(refundNo, 999_999, 500, 0, false));
        assertThat(Client.json(first).get("code").asInt()).as(first.body()).isEqualTo(500);
        assertThat(records(refundNo)).as("no record completed for work that was rolled back").isEmpty();
        HttpResponse<String> retry = client.post("alice", "/refunds", Client.refund(refundNo, 999_999, 500, 0, false));
        assertThat(Client.json(retry).get("code").asInt()).as("the retry ran again and failed again, no refund replayed")
                .isEqualTo(500);
        assertThat(refundService.executions() - before).isEqualTo(2);
        assertThat(refundRows(refundNo)).isZero();
    }
}
