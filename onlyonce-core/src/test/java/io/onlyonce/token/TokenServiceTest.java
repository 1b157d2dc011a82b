package io.onlyonce.token;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.StoreUnavailableException;
import io.onlyonce.memory.InMemoryTokenStore;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TokenServiceTest {

    private static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

    private final Clock clock = Clock.fixed(Instant.parse("2026-11-30T00:00:00Z"), ZoneOffset.UTC);
    private final TokenService service = new TokenService(new InMemoryTokenStore(), TokenConfig.of(SECRET), clock);

    @Test
    void everyTokenHasExactlyOneSpelling() {
        IssuedToken issued = service.issue("alice", "order");
        String value = issued.value();
        int last = ALPHABET.indexOf(value.charAt(value.length() - 1));
        Set<TokenVerification> results = new HashSet<>();
        int accepted = 0;
        for (int spare = 0; spare < 4; spare++) {
            String variant = value.substring(0, value.length() - 1) + ALPHABET.charAt((last & ~3) | spare);
            TokenVerification verification = service.verify(variant, "alice", "order");
            results.add(verification);
            if (verification instanceof TokenVerification.Valid) {
                accepted++;
                assertThat(variant).isEqualTo(value);
            }
        }
        assertThat(accepted).isEqualTo(1);
        assertThat(results).hasSize(2);
    }

    @Test
    void principalsAndScopesMustBeWellFormedText() {
        assertThatThrownBy(() -> service.issue("alice\uD800", "order")).isInstanceOf(IllegalArgumentException.class);
        IssuedToken forAlice = service.issue("alice?", "order");
        assertThat(service.verify(forAlice.value(), "alice\uD800", "order")).isInstanceOf(TokenVerification.WrongBinding.class);
        assertThat(service.verify(forAlice.value(), "alice?", "order")).isInstanceOf(TokenVerification.Valid.class);
    }

    @Test
    void aFullStoreRefusesNewTokensAndKeepsTheLiveOnes() {
        TokenService small = new TokenService(new InMemoryTokenStore(InstantSource.system(), 2),
                TokenConfig.of(SECRET), Clock.systemUTC());
        IssuedToken first = small.issue("alice", "");
        IssuedToken second = small.issue("bob", "");
        assertThatThrownBy(() -> small.issue("mallory", "")).isInstanceOf(StoreUnavailableException.class);
        for (var pair : java.util.List.of(java.util.Map.entry(first, "alice"), java.util.Map.entry(second, "bob"))) {
            TokenVerification verification = small.verify(pair.getKey().value(), pair.getValue(), "");
            assertThat(small.consume(((TokenVerification.Valid) verification).token())).isTrue();
        }
    }

    @Test
    void theStoreNotTheVerifierDecidesWhetherATokenIsAlive() {
        Instant issuedAt = Instant.parse("2026-11-30T00:00:00Z");
        java.util.concurrent.atomic.AtomicReference<Instant> storeTime = new java.util.concurrent.atomic.AtomicReference<>(issuedAt);
        InMemoryTokenStore store = new InMemoryTokenStore(storeTime::get, 100);
        TokenService issuer = new TokenService(store, TokenConfig.of(SECRET).withTtl(Duration.ofMinutes(10)),
                Clock.fixed(issuedAt, ZoneOffset.UTC));
        TokenService aheadByAnHour = new TokenService(store, TokenConfig.of(SECRET).withTtl(Duration.ofMinutes(10)),
                Clock.fixed(issuedAt.plus(Duration.ofHours(1)), ZoneOffset.UTC));
        OneTimeToken first = ((TokenVerification.Valid) aheadByAnHour.verify(issuer.issue("alice", "").value(), "alice", ""))
                .token();
        OneTimeToken second = ((TokenVerification.Valid) aheadByAnHour.verify(issuer.issue("alice", "").value(), "alice", ""))
                .token();
        storeTime.set(issuedAt.plus(Duration.ofMinutes(9)));
        assertThat(aheadByAnHour.consume(first)).as("alive on the store's clock, whatever the verifier's").isTrue();
        storeTime.set(issuedAt.plus(Duration.ofMinutes(10)));
        assertThat(aheadByAnHour.consume(second)).as("expired on the store's clock").isFalse();
    }
}
