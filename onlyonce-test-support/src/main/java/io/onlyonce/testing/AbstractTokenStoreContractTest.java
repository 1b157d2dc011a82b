package io.onlyonce.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.onlyonce.StoreUnavailableException;
import io.onlyonce.token.IssuedToken;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenConfig;
import io.onlyonce.token.TokenService;
import io.onlyonce.token.TokenStore;
import io.onlyonce.token.TokenVerification;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The rules every {@link TokenStore} keeps, and the {@link TokenService} on top of it. A store's
 * test extends this class and returns a store on the real server from {@link #createStore()}.
 */
public abstract class AbstractTokenStoreContractTest {

    protected static final int THREADS = 64;
    private static final byte[] SECRET = "0123456789abcdef0123456789abcdef-secret".getBytes(StandardCharsets.US_ASCII);
    private static final SecureRandom RANDOM = new SecureRandom();

    protected TokenStore store;
    protected MutableClock clock;

    /** A store on the real server, isolated from every other test. Called before each test. */
    protected abstract TokenStore createStore() throws Exception;

    /** A store whose server is stopped or unreachable; empty where there is no server. */
    protected Optional<TokenStore> createUnreachableStore() throws Exception {
        return Optional.empty();
    }

    /** Releases what {@link #createStore()} made. Called after each test. */
    protected void cleanUp() throws Exception {
    }

    @BeforeEach
    void setUpContract() throws Exception {
        clock = MutableClock.startingNow();
        store = createStore();
    }

    @AfterEach
    void tearDownContract() throws Exception {
        cleanUp();
    }

    protected OneTimeToken newToken(Duration ttl) {
        byte[] id = new byte[16];
        RANDOM.nextBytes(id);
        return new OneTimeToken(Base64.getUrlEncoder().withoutPadding().encodeToString(id), clock.instant().plus(ttl));
    }

    private TokenService service() {
        return new TokenService(store, TokenConfig.of(SECRET), clock);
    }

    @Test
    void savedTokenIsConsumedOnce() {
        OneTimeToken token = newToken(Duration.ofMinutes(10));
        store.save(token, clock.instant());
        assertThat(store.consume(token, clock.instant())).isTrue();
        assertThat(store.consume(token, clock.instant())).isFalse();
    }

    @Test
    void manyThreadsConsumeOneTokenAndExactlyOneSucceeds() throws Exception {
        OneTimeToken token = newToken(Duration.ofMinutes(10));
        store.save(token, clock.instant());
        List<Boolean> results = Race.run(THREADS, () -> store.consume(token, clock.instant()));
        assertThat(results).filteredOn(Boolean::booleanValue).hasSize(1);
    }

    @Test
    void neverSavedTokenIsNotConsumed() {
        assertThat(store.consume(newToken(Duration.ofMinutes(10)), clock.instant())).isFalse();
    }

    @Test
    void expiredTokenIsNeverConsumed() {
        OneTimeToken token = newToken(Duration.ofSeconds(10));
        store.save(token, clock.instant());
        assertThat(store.consume(token, token.expiresAt())).isFalse();
        assertThat(store.consume(token, token.expiresAt().plusSeconds(60))).isFalse();
    }

    @Test
    void tokenIsConsumableUntilTheMillisecondBeforeExpiry() {
        OneTimeToken token = newToken(Duration.ofSeconds(10));
        store.save(token, clock.instant());
        assertThat(store.consume(token, token.expiresAt().minusMillis(1))).isTrue();
    }

    @Test
    void tokensAreIndependent() {
        OneTimeToken one = newToken(Duration.ofMinutes(10));
        OneTimeToken two = newToken(Duration.ofMinutes(10));
        store.save(one, clock.instant());
        store.save(two, clock.instant());
        assertThat(store.consume(one, clock.instant())).isTrue();
        assertThat(store.consume(two, clock.instant())).isTrue();
    }

    @Test
    void restoreReopensAConsumedTokenOnceButNeverAnExpiredOne() {
        OneTimeToken token = newToken(Duration.ofSeconds(10));
        Instant now = clock.instant();
        store.save(token, now);
        assertThat(store.restore(token, now)).as("restore of an unconsumed token").isFalse();
        assertThat(store.consume(token, now)).isTrue();
        assertThat(store.restore(token, now)).isTrue();
        assertThat(store.consume(token, now)).isTrue();
        assertThat(store.consume(token, now)).isFalse();
        assertThat(store.restore(token, token.expiresAt())).isFalse();
        assertThat(store.consume(token, token.expiresAt())).isFalse();
    }

    @Test
    void serviceIssuesVerifiesAndConsumesExactlyOnce() {
        TokenService service = service();
        IssuedToken issued = service.issue("alice", "order:create");
        assertThat(issued.value()).hasSize(TokenService.TOKEN_LENGTH);
        assertThat(issued.expiresAt()).isAfter(clock.instant());

        TokenVerification verification = service.verify(issued.value(), "alice", "order:create");
        assertThat(verification).isInstanceOf(TokenVerification.Valid.class);
        OneTimeToken token = ((TokenVerification.Valid) verification).token();
        assertThat(service.consume(token)).isTrue();
        assertThat(service.consume(token)).isFalse();
    }

    @Test
    void serviceTokenConsumedByManyThreadsSucceedsOnce() throws Exception {
        TokenService service = service();
        IssuedToken issued = service.issue("alice", "order:create");
        List<Boolean> results = Race.run(THREADS, () -> {
            TokenVerification v = service.verify(issued.value(), "alice", "order:create");
            return v instanceof TokenVerification.Valid valid && service.consume(valid.token());
        });
        assertThat(results).filteredOn(Boolean::booleanValue).hasSize(1);
    }

    @Test
    void forgedTokenIsRefusedWithoutConsuming() {
        TokenService service = service();
        IssuedToken issued = service.issue("alice", "order:create");
        byte[] raw = Base64.getUrlDecoder().decode(issued.value());
        raw[raw.length - 1] ^= 1;
        String tamperedMac = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
        assertThat(service.verify(tamperedMac, "alice", "order:create")).isInstanceOf(TokenVerification.Forged.class);

        byte[] raw2 = Base64.getUrlDecoder().decode(issued.value());
        raw2[20] ^= 1; // inside the expiry: a client extending its token
        String tamperedExpiry = Base64.getUrlEncoder().withoutPadding().encodeToString(raw2);
        assertThat(service.verify(tamperedExpiry, "alice", "order:create")).isInstanceOf(TokenVerification.Forged.class);

        TokenService otherSecret = new TokenService(store,
                TokenConfig.of("another-secret-another-secret-another".getBytes(StandardCharsets.US_ASCII)), clock);
        assertThat(otherSecret.verify(issued.value(), "alice", "order:create")).isInstanceOf(TokenVerification.Forged.class);

        TokenVerification genuine = service.verify(issued.value(), "alice", "order:create");
        assertThat(service.consume(((TokenVerification.Valid) genuine).token())).as("still unconsumed").isTrue();
    }

    @Test
    void malformedTokensAreRefused() {
        TokenService service = service();
        for (String bad : new String[] {"", "abc", "x".repeat(TokenService.TOKEN_LENGTH), "!".repeat(TokenService.TOKEN_LENGTH)}) {
            assertThat(service.verify(bad, "alice", "s")).as(bad).isInstanceOf(TokenVerification.Malformed.class);
        }
    }

    @Test
    void tokenOfAnotherPrincipalOrScopeIsRefused() {
        TokenService service = service();
        IssuedToken issued = service.issue("alice", "order:create");
        assertThat(service.verify(issued.value(), "bob", "order:create")).isInstanceOf(TokenVerification.WrongBinding.class);
        assertThat(service.verify(issued.value(), "alice", "order:cancel")).isInstanceOf(TokenVerification.WrongBinding.class);
        assertThat(service.verify(issued.value(), "alice" + "order", ":create")).isInstanceOf(TokenVerification.WrongBinding.class);
    }

    @Test
    void expiredTokenIsRefusedByServiceAndStore() {
        TokenService service = new TokenService(store, TokenConfig.of(SECRET).withTtl(Duration.ofSeconds(30)), clock);
        IssuedToken issued = service.issue("alice", "s");
        OneTimeToken token = ((TokenVerification.Valid) service.verify(issued.value(), "alice", "s")).token();
        clock.advance(Duration.ofSeconds(31));
        assertThat(service.verify(issued.value(), "alice", "s")).isInstanceOf(TokenVerification.Expired.class);
        assertThat(service.consume(token)).isFalse();
    }

    @Test
    void rotatedSecretStillVerifiesTokensItSigned() {
        byte[] newSecret = "a-brand-new-secret-a-brand-new-secret".getBytes(StandardCharsets.US_ASCII);
        IssuedToken old = service().issue("alice", "s");
        TokenService rotated = new TokenService(store, new TokenConfig(Duration.ofMinutes(10), List.of(newSecret, SECRET)), clock);
        assertThat(rotated.verify(old.value(), "alice", "s")).isInstanceOf(TokenVerification.Valid.class);
        IssuedToken fresh = rotated.issue("alice", "s");
        assertThat(service().verify(fresh.value(), "alice", "s")).isInstanceOf(TokenVerification.Forged.class);
    }

    @Test
    void unreachableServerIsAClearExceptionNeverASilentSuccess() throws Exception {
        Optional<TokenStore> dead = createUnreachableStore();
        assumeTrue(dead.isPresent(), "this store has no server");
        OneTimeToken token = newToken(Duration.ofMinutes(10));
        assertThatThrownBy(() -> dead.get().save(token, clock.instant())).isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> dead.get().consume(token, clock.instant())).isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> dead.get().restore(token, clock.instant())).isInstanceOf(StoreUnavailableException.class);
    }
}
