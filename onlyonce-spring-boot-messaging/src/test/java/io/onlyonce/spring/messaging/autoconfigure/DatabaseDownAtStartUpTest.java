package io.onlyonce.spring.messaging.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.spring.autoconfigure.OnlyOnceAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import io.onlyonce.messaging.OutboxRelay;
import io.onlyonce.store.IdempotencyStore;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * An application whose database is down when it starts: it starts (the dialect read from
 * {@code spring.datasource.url}, one WARN), and the JDBC store and the outbox relay answer
 * "unavailable" until the database is back, as they do when it goes down later.
 */
@ExtendWith(OutputCaptureExtension.class)
class DatabaseDownAtStartUpTest {

    private static int closedPort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void theStoreAndTheMessageLayerStartOnADatabaseThatDoesNotAnswerAndAnswerUnavailableMeanwhile(CapturedOutput output)
            throws Exception {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(OnlyOnceAutoConfiguration.class, AopAutoConfiguration.class))
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, OnlyOnceMessagingAutoConfiguration.class))
                .withPropertyValues("onlyonce.store=jdbc", "onlyonce.messaging.relay.poll-interval=1h",
                        "onlyonce.token.secrets[0]=a-startup-test-secret-0123456789abcdef",
                        "spring.datasource.url=jdbc:postgresql://127.0.0.1:" + closedPort() + "/nowhere",
                        "spring.datasource.hikari.connection-timeout=1000")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(JdbcDialect.class)).isEqualTo(JdbcDialect.POSTGRESQL);
                    assertThat(output).contains("OnlyOnce's JDBC store: the database did not answer at start-up")
                            .contains("OnlyOnce's message layer: the database did not answer at start-up");
                    IdempotencyStore store = context.getBean(IdempotencyStore.class);
                    assertThatThrownBy(() -> store.claim(new IdempotencyKey("s", "k"), Fingerprint.of("POST", "/x"),
                            Duration.ofSeconds(10))).isInstanceOf(StoreUnavailableException.class);
                    assertThatThrownBy(() -> context.getBean(OutboxRelay.class).pollOnce())
                            .isInstanceOf(StoreUnavailableException.class);
                });
    }
}
