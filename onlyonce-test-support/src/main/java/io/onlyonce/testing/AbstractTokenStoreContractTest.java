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
    /** A token life that does not end during a test. */
    protected static final Duration TTL = Duration.ofMinutes(10);
    /** A token life short enough to let pass in a test. */
    protected static final Duration SHORT = Duration.ofMillis(400);
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

    /** Lets {@code duration} pass on the store's clock: sleeps, unless the store runs on {@link #clock}. */
    protected void elapse(Duration duration) throws InterruptedException {
        Thread.sleep(duration.toMillis());
    }

    protected OneTimeToken newToken(Duration ttl) {
        byte[] id = new byte[16];
        RANDOM.nextBytes(id);
        return new OneTimeToken(Base64.getUrlEncoder().withoutPadding().encodeToString(id), clock.instant().plus(ttl));
    }

    /** A token saved with {@code ttl}. */
    protected OneTimeToken saved(Duration ttl) {
        OneTimeToken token = newToken(ttl);
        assertThat(store.save(token, ttl)).isTrue();
        return token;
    }

    private TokenService service() {
        return new TokenService(store, TokenConfig.of(SECRET), clock);
    }

    @Test
    void savedTokenIsConsumedOnce() {
        OneTimeToken token = saved(TTL);
        assertThat(store.consume(token)).isTrue();
        assertThat(store.consume(token)).isFalse();
    }

    @Test
    void manyThreadsConsumeOneTokenAndExactlyOneSucceeds() throws Exception {
        OneTimeToken token = saved(TTL);
        List<Boolean> results = Race.run(THREADS, () -> store.consume(token));
        assertThat(results).filteredOn(Boolean::booleanValue).hasSize(1);
    }

    @Test
    void neverSavedTokenIsNotConsumed() {
        assertThat(store.consume(newToken(TTL))).isFalse();
        assertThat(store.restore(newToken(TTL))).isFalse();
    }

    @Test
    void expiredTokenIsNeverConsumedNorRestored() throws Exception {
        OneTimeToken unused = saved(SHORT);
        OneTimeToken consumed = saved(SHORT);
        assertThat(store.consume(consumed)).isTrue();
        elapse(SHORT.plusMillis(100));
        assertThat(store.consume(unused)).isFalse();
        assertThat(store.restore(consumed)).isFalse();
        assertThat(store.consume(consumed)).isFalse();
    }

    @Test
    void theStoresClockDecidesNotTheExpirySignedIntoTheToken() throws Exception {
        byte[] id = new byte[16];
        RANDOM.nextBytes(id);
        OneTimeToken signedLongAgo = new OneTimeToken(Base64.getUrlEncoder().withoutPadding().encodeToString(id),
                clock.instant().minus(Duration.ofMinutes(5)));
        assertThat(store.save(signedLongAgo, TTL)).isTrue();
        assertThat(store.consume(signedLongAgo)).as("alive for its TTL on the store's clock").isTrue();

        byte[] id2 = new byte[16];
        RANDOM.nextBytes(id2);
        OneTimeToken signedFarAhead = new OneTimeToken(Base64.getUrlEncoder().withoutPadding().encodeToString(id2),
                clock.instant().plus(Duration.ofMinutes(30)));
        assertThat(store.save(signedFarAhead, SHORT)).isTrue();
        elapse(SHORT.plusMillis(100));
        assertThat(store.consume(signedFarAhead)).as("dead after its TTL on the store's clock").isFalse();
    }

    @Test
    void tokensAreIndependent() {
        OneTimeToken one = saved(TTL);
        OneTimeToken two = saved(TTL);
        assertThat(store.consume(one)).isTrue();
        assertThat(store.consume(two)).isTrue();
    }

    @Test
    void savingATokenAgainChangesNothing() {
        OneTimeToken token = saved(TTL);
        assertThat(store.consume(token)).isTrue();
        store.save(token, TTL);
        assertThat(store.consume(token)).as("a second save does not reopen a consumed token").isFalse();
    }

    @Test
    void restoreReopensAConsumedTokenOnce() {
        OneTimeToken token = saved(TTL);
        assertThat(store.restore(token)).as("restore of an unconsumed token").isFalse();
        assertThat(store.consume(token)).isTrue();
        assertThat(store.restore(token)).isTrue();
        assertThat(store.restore(token)).isFalse();
        assertThat(store.consume(token)).isTrue();
        assertThat(store.consume(token)).isFalse();
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
    void expiredTokenIsRefusedByTheStore() throws Exception {
        TokenService service = new TokenService(store, TokenConfig.of(SECRET).withTtl(SHORT), clock);
        IssuedToken issued = service.issue("alice", "s");
        OneTimeToken token = ((TokenVerification.Valid) service.verify(issued.value(), "alice", "s")).token();
        elapse(SHORT.plusMillis(100));
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
        OneTimeToken token = newToken(TTL);
        assertThatThrownBy(() -> dead.get().save(token, TTL)).isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> dead.get().consume(token)).isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> dead.get().restore(token)).isInstanceOf(StoreUnavailableException.class);
    }
}
