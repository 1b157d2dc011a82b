package io.onlyonce.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.spring.Idempotent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.transaction.annotation.Transactional;

/** The start-up warning for transactional @Idempotent methods on a JDBC store that does not join transactions. */
@ExtendWith(OutputCaptureExtension.class)
class TransactionalIdempotentMethodsTest {

    static class RefundService {
        @Idempotent(key = "#refundNo")
        @Transactional
        public String refund(String refundNo) {
            return refundNo;
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(TestSettings.ONLYONCE)
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class))
            .withBean(RefundService.class)
            .withPropertyValues("onlyonce.store=jdbc", "spring.datasource.url=jdbc:h2:mem:oo-tx-warning;DB_CLOSE_DELAY=-1",
                    "spring.datasource.hikari.maximum-pool-size=4");

    @Test
    void notJoinedStartUpNamesTheMethodsThatHoldTwoConnectionsAndThePoolSize(CapturedOutput output) {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(output).contains("OnlyOnce: [RefundService.refund] run in transactions")
                    .contains("(4 connections)").contains("onlyonce.jdbc.join-transaction=true");
        });
    }

    @Test
    void joinedThereIsNothingToSay(CapturedOutput output) {
        runner.withPropertyValues("onlyonce.jdbc.join-transaction=true").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(output).doesNotContain("run in transactions");
        });
    }
}
