package io.onlyonce.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.RecordStatus;
import io.onlyonce.token.OneTimeToken;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import javax.sql.DataSource;

/** One pass through each store, to show that a schema created some other way serves them. */
final class StoreSmoke {

    private StoreSmoke() {
    }

    static void storesWork(DataSource dataSource, JdbcDialect dialect, JdbcStoreConfig config) {
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        JdbcIdempotencyStore idempotency = new JdbcIdempotencyStore(dataSource, dialect, config);
        IdempotencyKey key = new IdempotencyKey("smoke", "key-1");
        Fingerprint fingerprint = Fingerprint.of("smoke");
        ClaimResult claim = idempotency.claim(key, fingerprint, now, Duration.ofSeconds(30));
        assertThat(claim).isInstanceOf(ClaimResult.Claimed.class);
        StoredResponse response = StoredResponse.of(201, new byte[] {1, 2, 3});
        assertThat(idempotency.complete(key, ((ClaimResult.Claimed) claim).owner(), response, now, Duration.ofHours(1)))
                .isTrue();
        assertThat(idempotency.find(key, now).orElseThrow().status()).isEqualTo(RecordStatus.COMPLETED);

        JdbcTokenStore tokens = new JdbcTokenStore(dataSource, dialect, config);
        OneTimeToken token = new OneTimeToken("AAAAAAAAAAAAAAAAAAAAAA", now.plusSeconds(60));
        tokens.save(token, now);
        assertThat(tokens.consume(token, now)).isTrue();
        assertThat(tokens.consume(token, now)).isFalse();

        JdbcWindowStore windows = new JdbcWindowStore(dataSource, dialect, config);
        assertThat(windows.firstInWindow(fingerprint, Duration.ofSeconds(3), now)).isTrue();
        assertThat(windows.firstInWindow(fingerprint, Duration.ofSeconds(3), now)).isFalse();
    }
}
