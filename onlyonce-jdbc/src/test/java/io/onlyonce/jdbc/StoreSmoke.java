package io.onlyonce.jdbc;

import io.onlyonce.jdbc.sql.JdbcDialect;
import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.RecordStatus;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.window.WindowHit;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;

/** One pass through each store, to show that a schema created some other way serves them. */
final class StoreSmoke {

    private StoreSmoke() {
    }

    static void storesWork(DataSource dataSource, JdbcDialect dialect, JdbcStoreConfig config) {
        JdbcIdempotencyStore idempotency = new JdbcIdempotencyStore(dataSource, dialect, config);
        IdempotencyKey key = new IdempotencyKey("smoke", "key-1");
        Fingerprint fingerprint = Fingerprint.of("smoke");
        ClaimResult claim = idempotency.claim(key, fingerprint, Duration.ofSeconds(30));
        assertThat(claim).isInstanceOf(ClaimResult.Claimed.class);
        StoredResponse response = StoredResponse.of(201, new byte[] {1, 2, 3});
        assertThat(idempotency.complete(key, ((ClaimResult.Claimed) claim).owner(), response, Duration.ofHours(1)))
                .isTrue();
        assertThat(idempotency.find(key).orElseThrow().status()).isEqualTo(RecordStatus.COMPLETED);

        JdbcTokenStore tokens = new JdbcTokenStore(dataSource, dialect, config);
        OneTimeToken token = new OneTimeToken("AAAAAAAAAAAAAAAAAAAAAA", Instant.now().plusSeconds(60));
        assertThat(tokens.save(token, Duration.ofSeconds(60))).isTrue();
        assertThat(tokens.consume(token)).isTrue();
        assertThat(tokens.consume(token)).isFalse();

        JdbcWindowStore windows = new JdbcWindowStore(dataSource, dialect, config);
        assertThat(windows.hit(fingerprint, Duration.ofSeconds(3))).isEqualTo(new WindowHit(1, Duration.ofSeconds(3)));
        assertThat(windows.hit(fingerprint, Duration.ofSeconds(3)).count()).isEqualTo(2);

        assertThat(idempotency.purgeExpired(100) + tokens.purgeExpired(100) + windows.purgeExpired(100)).isZero();
    }
}
