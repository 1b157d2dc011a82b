package io.onlyonce.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.redis.internal.IdempotencyValue;
import io.onlyonce.redis.script.CorruptValueException;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.store.RecordStatus;
import io.onlyonce.store.StoredResponseCodec;
import io.onlyonce.token.OneTimeToken;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The fused call of {@link RedisAtomicExecutor} on a real Redis: its outcomes, what it writes (and
 * does not), that the ordinary stores see its record, the encoding of the stored response, and
 * exactly-once under concurrency. Subclasses pick the topology; every key of the class lives under
 * {@link #config()}'s prefix, and the effects' keys too ({@link #effectKey}), so that on a Cluster a
 * prefix with a hash tag keeps every call in one slot.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractRedisAtomicExecutorIT {

    static final Duration RETENTION = Duration.ofMinutes(10);
    static final Duration LEASE = Duration.ofSeconds(30);
    private static final SecureRandom RANDOM = new SecureRandom();

    /** INCRs KEYS[1] (the runs), answers 201 with ARGV[1] as body and a Location header. */
    static final RedisEffect COUNTING = RedisEffect.of("counting", """
            local runs = redis.call('INCR', KEYS[1])
            return {'complete', 201, ARGV[1], 'Location', '/orders/' .. runs}
            """);
    /** Answers exactly the response ARGV describes: status, body, then header names and values. */
    static final RedisEffect ECHO = RedisEffect.of("echo", """
            local out = {'complete', tonumber(ARGV[1])}
            for i = 2, #ARGV do
              out[#out + 1] = ARGV[i]
            end
            return out
            """);
    /** Takes one unit of the stock at KEYS[1], or declines when none is left; never below zero. */
    static final RedisEffect RESERVE = RedisEffect.of("reserve", """
            local stock = tonumber(redis.call('GET', KEYS[1]) or '0')
            if stock <= 0 then
              return {'decline', 'sold out', stock}
            end
            local left = redis.call('DECR', KEYS[1])
            return {'complete', 202, 'reserved, ' .. left .. ' left'}
            """);
    /** Declines without writing. */
    static final RedisEffect DECLINING = RedisEffect.of("declining", """
            return {'decline', 'sold out', 7}
            """);
    /** Fails with a Lua error before it writes. */
    static final RedisEffect BROKEN = RedisEffect.of("broken", """
            local missing = nil
            return missing.field
            """);

    private StatefulConnection<byte[], byte[]> connection;
    private RedisStoreConfig config;
    RedisAtomicExecutor atomic;
    RedisIdempotencyStore store;
    RedisTokenStore tokens;
    RedisWindowStore windows;

    /** Connects to the test server; the keys under the prefix are removed by {@link #disconnect()}. */
    abstract StatefulConnection<byte[], byte[]> connect(RedisStoreConfig config) throws Exception;

    /** The prefix of the class's keys. */
    abstract String keyPrefix();

    /** Deletes the keys and disconnects. */
    abstract void disconnect() throws Exception;

    @BeforeAll
    void open() throws Exception {
        config = new RedisStoreConfig(keyPrefix(), 64);
        connection = connect(config);
        atomic = RedisAtomicExecutor.of(connection, config);
        store = RedisIdempotencyStore.of(connection, config);
        tokens = RedisTokenStore.of(connection, config);
        windows = RedisWindowStore.of(connection, config);
    }

    @AfterAll
    void close() throws Exception {
        disconnect();
    }

    RedisStoreConfig config() {
        return config;
    }

    RedisClusterCommands<byte[], byte[]> commands() {
        if (connection instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster) {
            return cluster.sync();
        }
        return ((StatefulRedisConnection<byte[], byte[]>) connection).sync();
    }

    StatefulConnection<byte[], byte[]> connection() {
        return connection;
    }

    /** A key of an effect, under the class's prefix. */
    String effectKey(String name) {
        return keyPrefix() + "fx:" + name + ":" + UUID.randomUUID();
    }

    static IdempotencyKey newKey() {
        return new IdempotencyKey("POST /orders/{id}", "k-" + UUID.randomUUID());
    }

    static Fingerprint newFingerprint() {
        return Fingerprint.of("body", UUID.randomUUID().toString());
    }

    static OneTimeToken newToken() {
        byte[] id = new byte[16];
        RANDOM.nextBytes(id);
        return new OneTimeToken(Base64.getUrlEncoder().withoutPadding().encodeToString(id), Instant.now().plusSeconds(120));
    }

    @Nullable String get(String key) {
        byte[] value = commands().get(key.getBytes(UTF_8));
        return value == null ? null : new String(value, UTF_8);
    }

    byte[] raw(IdempotencyKey key) {
        return commands().get(new io.onlyonce.redis.internal.RedisKeys(keyPrefix()).idempotency(key));
    }

    AtomicCall counting(IdempotencyKey key, Fingerprint fingerprint, String counter) {
        return AtomicCall.of(key, fingerprint, RETENTION, COUNTING).keys(counter).args("{\"order\":1}").build();
    }

    @Test
    void firstCallCompletesAndTheStoreReadsTheRecord() {
        IdempotencyKey key = newKey();
        Fingerprint fingerprint = newFingerprint();
        String counter = effectKey("runs");
        StoredResponse expected = new StoredResponse(201, List.of(new StoredResponse.Header("Location", "/orders/1")),
                "{\"order\":1}".getBytes(UTF_8));

        AtomicOutcome outcome = atomic.run(counting(key, fingerprint, counter));

        assertThat(outcome).isEqualTo(new AtomicOutcome.Completed(expected));
        assertThat(get(counter)).isEqualTo("1");
        IdempotencyRecord found = store.find(key).orElseThrow();
        assertThat(found.status()).isEqualTo(RecordStatus.COMPLETED);
        assertThat(found.fingerprint()).isEqualTo(fingerprint);
        assertThat(found.response()).isEqualTo(expected);
        assertThat(found.expiresIn()).isGreaterThan(RETENTION.minusSeconds(10)).isLessThanOrEqualTo(RETENTION);
        byte[] value = raw(key);
        assertThat(value[0]).isEqualTo(IdempotencyValue.COMPLETED);
        assertThat(Arrays.copyOfRange(value, IdempotencyValue.HEADER_LENGTH, value.length))
                .isEqualTo(StoredResponseCodec.encode(expected));
        IdempotencyRecord foundByExecutor = atomic.find(key, null).orElseThrow();
        assertThat(foundByExecutor.response()).isEqualTo(expected);
        assertThat(foundByExecutor.owner()).isEqualTo(found.owner());
    }

    @Test
    void secondCallWithTheSameKeyReplays() {
        IdempotencyKey key = newKey();
        Fingerprint fingerprint = newFingerprint();
        String counter = effectKey("runs");
        AtomicOutcome.Completed first = (AtomicOutcome.Completed) atomic.run(counting(key, fingerprint, counter));

        AtomicOutcome second = atomic.run(counting(key, fingerprint, counter));

        assertThat(second).isInstanceOf(AtomicOutcome.Existing.class);
        IdempotencyRecord record = ((AtomicOutcome.Existing) second).record();
        assertThat(record.status()).isEqualTo(RecordStatus.COMPLETED);
        assertThat(record.fingerprint()).isEqualTo(fingerprint);
        assertThat(record.response()).isEqualTo(first.response());
        assertThat(get(counter)).isEqualTo("1");
    }

    @Test
    void anotherFingerprintFindsTheFirstRequestsRecord() {
        IdempotencyKey key = newKey();
        Fingerprint fingerprint = newFingerprint();
        String counter = effectKey("runs");
        atomic.run(counting(key, fingerprint, counter));

        AtomicOutcome other = atomic.run(counting(key, newFingerprint(), counter));

        assertThat(((AtomicOutcome.Existing) other).record().fingerprint()).isEqualTo(fingerprint);
        assertThat(get(counter)).isEqualTo("1");
    }

    @Test
    void aTwoStepClaimInProgressIsExistingInProgress() {
        IdempotencyKey key = newKey();
        Fingerprint fingerprint = newFingerprint();
        String counter = effectKey("runs");
        OwnerToken owner = ((ClaimResult.Claimed) store.claim(key, fingerprint, LEASE)).owner();

        AtomicOutcome outcome = atomic.run(counting(key, fingerprint, counter));

        IdempotencyRecord record = ((AtomicOutcome.Existing) outcome).record();
        assertThat(record.status()).isEqualTo(RecordStatus.IN_PROGRESS);
        assertThat(record.owner()).isEqualTo(owner);
        assertThat(get(counter)).isNull();
    }

    @Test
    void aTwoStepClaimAfterTheCallFindsItsCompletedRecord() {
        IdempotencyKey key = newKey();
        Fingerprint fingerprint = newFingerprint();
        AtomicOutcome.Completed done = (AtomicOutcome.Completed) atomic.run(counting(key, fingerprint, effectKey("runs")));

        ClaimResult claim = store.claim(key, fingerprint, LEASE);

        assertThat(((ClaimResult.Existing) claim).record().response()).isEqualTo(done.response());
    }

    @Test
    void aDeclineWritesNoRecordAndConsumesTheTokenByDefault() {
        IdempotencyKey key = newKey();
        OneTimeToken token = newToken();
        tokens.save(token, Duration.ofSeconds(60));

        AtomicOutcome outcome = atomic.run(AtomicCall.of(key, newFingerprint(), RETENTION, DECLINING).token(token).build());

        AtomicOutcome.Declined declined = (AtomicOutcome.Declined) outcome;
        assertThat(declined.text(0)).isEqualTo("sold out");
        assertThat(declined.values().get(1)).isEqualTo(7L);
        assertThat(store.find(key)).isEmpty();
        assertThat(tokens.consume(token)).as("consumed by the decline").isFalse();
    }

    @Test
    void aDeclineCanLeaveTheTokenAlive() {
        IdempotencyKey key = newKey();
        OneTimeToken token = newToken();
        tokens.save(token, Duration.ofSeconds(60));
        String stock = effectKey("stock");

        AtomicOutcome outcome = atomic.run(AtomicCall.of(key, newFingerprint(), RETENTION, RESERVE)
                .keys(stock).token(token).consumeTokenOnDecline(false).build());

        assertThat(((AtomicOutcome.Declined) outcome).text(0)).isEqualTo("sold out");
        assertThat(store.find(key)).isEmpty();
        assertThat(get(stock)).as("the effect wrote nothing").isNull();
        assertThat(tokens.consume(token)).as("still alive").isTrue();
    }

    @Test
    void aCompletedCallConsumesItsToken() {
        IdempotencyKey key = newKey();
        OneTimeToken token = newToken();
        tokens.save(token, Duration.ofSeconds(60));

        AtomicOutcome outcome = atomic.run(AtomicCall.of(key, newFingerprint(), RETENTION, COUNTING)
                .keys(effectKey("runs")).args("x").token(token).build());

        assertThat(outcome).isInstanceOf(AtomicOutcome.Completed.class);
        assertThat(tokens.consume(token)).isFalse();
        assertThat(tokens.restore(token)).as("consumed, as the token store consumes").isTrue();
    }

    @Test
    void anUnknownTokenIsRefusedAndNothingRuns() {
        assertRefusedWithoutEffect(newToken());
    }

    @Test
    void aUsedTokenIsRefusedAndNothingRuns() {
        OneTimeToken token = newToken();
        tokens.save(token, Duration.ofSeconds(60));
        tokens.consume(token);
        assertRefusedWithoutEffect(token);
        assertThat(tokens.restore(token)).as("still consumed, not rewritten").isTrue();
    }

    @Test
    void anExpiredTokenIsRefusedAndNothingRuns() throws InterruptedException {
        OneTimeToken token = newToken();
        tokens.save(token, Duration.ofMillis(1));
        Thread.sleep(20);
        assertRefusedWithoutEffect(token);
    }

    private void assertRefusedWithoutEffect(OneTimeToken token) {
        IdempotencyKey key = newKey();
        String counter = effectKey("runs");

        AtomicOutcome outcome = atomic.run(AtomicCall.of(key, newFingerprint(), RETENTION, COUNTING)
                .keys(counter).args("x").token(token).build());

        assertThat(outcome).isEqualTo(new AtomicOutcome.TokenRefused(Optional.empty()));
        assertThat(get(counter)).as("the effect did not run").isNull();
        assertThat(store.find(key)).isEmpty();
    }

    @Test
    void aRepeatedTokenIsRefusedWithTheFirstAnswer() {
        IdempotencyKey key = newKey();
        OneTimeToken token = newToken();
        tokens.save(token, Duration.ofSeconds(60));
        String counter = effectKey("runs");
        AtomicCall call = AtomicCall.of(key, newFingerprint(), RETENTION, COUNTING).keys(counter).args("x").token(token).build();
        AtomicOutcome.Completed first = (AtomicOutcome.Completed) atomic.run(call);

        AtomicOutcome again = atomic.run(call);

        IdempotencyRecord record = ((AtomicOutcome.TokenRefused) again).first().orElseThrow();
        assertThat(record.response()).isEqualTo(first.response());
        assertThat(get(counter)).isEqualTo("1");
    }

    @Test
    void aSecondHitInTheWindowIsAnsweredAndChangesNothingElse() {
        Fingerprint window = newFingerprint();
        String counter = effectKey("runs");
        IdempotencyKey first = newKey();
        IdempotencyKey second = newKey();
        assertThat(atomic.run(AtomicCall.of(first, newFingerprint(), RETENTION, COUNTING).keys(counter).args("x")
                .window(window, Duration.ofSeconds(30)).build())).isInstanceOf(AtomicOutcome.Completed.class);

        AtomicOutcome repeated = atomic.run(AtomicCall.of(second, newFingerprint(), RETENTION, COUNTING).keys(counter)
                .args("x").window(window, Duration.ofSeconds(30)).build());

        AtomicOutcome.InWindow hit = (AtomicOutcome.InWindow) repeated;
        assertThat(hit.hit().count()).isEqualTo(2);
        assertThat(hit.hit().remaining()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30));
        assertThat(store.find(second)).isEmpty();
        assertThat(get(counter)).isEqualTo("1");
        assertThat(windows.hit(window, Duration.ofSeconds(30)).count()).as("the window store counts the same key").isEqualTo(3);
    }

    @Test
    void aWindowOpenedByTheWindowStoreStopsTheCall() {
        Fingerprint window = newFingerprint();
        windows.hit(window, Duration.ofSeconds(30));
        String counter = effectKey("runs");

        AtomicOutcome outcome = atomic.run(AtomicCall.of(newKey(), newFingerprint(), RETENTION, COUNTING).keys(counter)
                .args("x").window(window, Duration.ofSeconds(30)).build());

        assertThat(((AtomicOutcome.InWindow) outcome).hit().count()).isEqualTo(2);
        assertThat(get(counter)).isNull();
    }

    @Test
    void theFirstHitOpensTheWindowWhateverTheCallAnswers() {
        Fingerprint refusedWindow = newFingerprint();
        assertThat(atomic.run(AtomicCall.of(newKey(), newFingerprint(), RETENTION, COUNTING).keys(effectKey("runs"))
                .args("x").token(newToken()).window(refusedWindow, Duration.ofSeconds(30)).build()))
                .isInstanceOf(AtomicOutcome.TokenRefused.class);
        assertThat(windows.hit(refusedWindow, Duration.ofSeconds(30)).count()).isEqualTo(2);

        IdempotencyKey key = newKey();
        Fingerprint fingerprint = newFingerprint();
        atomic.run(counting(key, fingerprint, effectKey("runs")));
        Fingerprint existingWindow = newFingerprint();
        assertThat(atomic.run(AtomicCall.of(key, fingerprint, RETENTION, COUNTING).keys(effectKey("runs")).args("x")
                .window(existingWindow, Duration.ofSeconds(30)).build())).isInstanceOf(AtomicOutcome.Existing.class);
        assertThat(windows.hit(existingWindow, Duration.ofSeconds(30)).count()).isEqualTo(2);

        Fingerprint declinedWindow = newFingerprint();
        assertThat(atomic.run(AtomicCall.of(newKey(), newFingerprint(), RETENTION, DECLINING)
                .window(declinedWindow, Duration.ofSeconds(30)).build())).isInstanceOf(AtomicOutcome.Declined.class);
        assertThat(windows.hit(declinedWindow, Duration.ofSeconds(30)).count()).isEqualTo(2);
    }

    @Test
    void aLuaErrorInTheEffectThrowsAndTheLibraryWritesNothing() {
        IdempotencyKey key = newKey();
        OneTimeToken token = newToken();
        tokens.save(token, Duration.ofSeconds(60));
        Fingerprint window = newFingerprint();

        assertThatThrownBy(() -> atomic.run(AtomicCall.of(key, newFingerprint(), RETENTION, BROKEN)
                .token(token).window(window, Duration.ofSeconds(30)).build()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("atomic broken")
                .hasMessageContaining("attempt to index");

        assertThat(store.find(key)).isEmpty();
        assertThat(tokens.consume(token)).as("not consumed").isTrue();
        assertThat(windows.hit(window, Duration.ofSeconds(30)).first()).as("not counted").isTrue();
    }

    @Test
    void anAnswerOfAnotherShapeThrowsAndWritesNoRecord() {
        IdempotencyKey key = newKey();
        RedisEffect wrong = RedisEffect.of("wrong", "return {'done', 200, 'ok'}");
        assertThatThrownBy(() -> atomic.run(AtomicCall.of(key, newFingerprint(), RETENTION, wrong).build()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("atomic wrong")
                .hasMessageContaining("neither");
        RedisEffect status = RedisEffect.of("status", "return {'complete', 99, 'ok'}");
        assertThatThrownBy(() -> atomic.run(AtomicCall.of(key, newFingerprint(), RETENTION, status).build()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("status");
        assertThatThrownBy(() -> atomic.run(echo(key, "200", "ok", "Bad Name", "v")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("header name");
        assertThatThrownBy(() -> atomic.run(echo(key, "200", "ok", "X-Ok", "line\nbreak")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("header value");
        assertThatThrownBy(() -> atomic.run(AtomicCall.of(key, newFingerprint(), RETENTION, ECHO)
                .args("200".getBytes(UTF_8), "ok".getBytes(UTF_8), "X-Ok".getBytes(UTF_8), new byte[] {(byte) 0xC3, 0x28})
                .build()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("header value");
        assertThatThrownBy(() -> atomic.run(echo(key, "200", "ok", "X-Lonely")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("without value");
        assertThat(store.find(key)).isEmpty();
    }

    @Test
    void aCommandTheEffectGetsRefusedThrows() {
        String hash = effectKey("hash");
        commands().hset(hash.getBytes(UTF_8), "f".getBytes(UTF_8), "v".getBytes(UTF_8));
        IdempotencyKey key = newKey();
        assertThatThrownBy(() -> atomic.run(AtomicCall.of(key, newFingerprint(), RETENTION, COUNTING).keys(hash).args("x").build()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("atomic counting")
                .hasMessageContaining("WRONGTYPE");
        assertThat(store.find(key)).isEmpty();
    }

    @Test
    void javaAndLuaEncodeTheStoredResponseAlike() {
        assertEncodedAlike(new StoredResponse(200, List.of(
                new StoredResponse.Header("Location", "/orders/ä-漢字-😀"),
                new StoredResponse.Header("X-Note", "tab\tinside, \u0080 and \u00ff"),
                new StoredResponse.Header("Content-Type", "application/json; charset=utf-8")),
                "{\"ok\":true}".getBytes(UTF_8)));
        assertEncodedAlike(StoredResponse.of(204, new byte[0]));
        assertEncodedAlike(new StoredResponse(201, List.of(new StoredResponse.Header("X-Empty", "")), new byte[0]));
        byte[] large = new byte[64 * 1024];
        RANDOM.nextBytes(large);
        assertEncodedAlike(new StoredResponse(200, List.of(new StoredResponse.Header("ETag", "\"v1\"")), large));
    }

    private void assertEncodedAlike(StoredResponse response) {
        IdempotencyKey key = newKey();
        List<byte[]> args = new ArrayList<>();
        args.add(Integer.toString(response.status()).getBytes(UTF_8));
        args.add(response.body());
        for (StoredResponse.Header header : response.headers()) {
            args.add(header.name().getBytes(UTF_8));
            args.add(header.value().getBytes(UTF_8));
        }
        AtomicOutcome outcome = atomic.run(AtomicCall.of(key, newFingerprint(), RETENTION, ECHO)
                .args(args.toArray(new byte[0][])).build());

        assertThat(outcome).isEqualTo(new AtomicOutcome.Completed(response));
        byte[] value = raw(key);
        byte[] luaEncoded = Arrays.copyOfRange(value, IdempotencyValue.HEADER_LENGTH, value.length);
        assertThat(luaEncoded).isEqualTo(StoredResponseCodec.encode(response));
        assertThat(StoredResponseCodec.decode(luaEncoded)).isEqualTo(response);
        assertThat(store.find(key).orElseThrow().response()).isEqualTo(response);
    }

    private AtomicCall echo(IdempotencyKey key, String... args) {
        return AtomicCall.of(key, newFingerprint(), RETENTION, ECHO).args(args).build();
    }

    @Test
    void sixtyFourCallsOfOneKeyRunTheEffectOnce() throws Exception {
        IdempotencyKey key = newKey();
        Fingerprint fingerprint = newFingerprint();
        String counter = effectKey("runs");
        List<AtomicOutcome> outcomes = concurrently(64, i -> atomic.run(counting(key, fingerprint, counter)));

        assertThat(outcomes).filteredOn(AtomicOutcome.Completed.class::isInstance).hasSize(1);
        assertThat(outcomes).filteredOn(AtomicOutcome.Existing.class::isInstance).hasSize(63);
        assertThat(get(counter)).isEqualTo("1");
    }

    @Test
    void sixtyFourBuyersOfTenUnitsGetExactlyTen() throws Exception {
        String stock = effectKey("stock");
        commands().set(stock.getBytes(UTF_8), "10".getBytes(UTF_8));
        List<AtomicOutcome> outcomes = concurrently(64, i -> atomic.run(AtomicCall.of(newKey(), newFingerprint(), RETENTION,
                RESERVE).keys(stock).build()));

        assertThat(outcomes).filteredOn(AtomicOutcome.Completed.class::isInstance).hasSize(10);
        assertThat(outcomes).filteredOn(AtomicOutcome.Declined.class::isInstance).hasSize(54);
        assertThat(get(stock)).isEqualTo("0");
    }

    @Test
    void theAsynchronousCallAnswersAsTheBlockingOne() throws Exception {
        IdempotencyKey key = newKey();
        Fingerprint fingerprint = newFingerprint();
        String counter = effectKey("runs");
        AtomicOutcome first = atomic.runAsync(counting(key, fingerprint, counter)).toCompletableFuture().get();
        AtomicOutcome second = atomic.runAsync(counting(key, fingerprint, counter)).toCompletableFuture().get();

        assertThat(first).isInstanceOf(AtomicOutcome.Completed.class);
        assertThat(((AtomicOutcome.Existing) second).record().response()).isEqualTo(((AtomicOutcome.Completed) first).response());
        assertThatThrownBy(() -> atomic.runAsync(AtomicCall.of(newKey(), newFingerprint(), RETENTION, BROKEN).build())
                .toCompletableFuture().join())
                .hasCauseInstanceOf(IllegalStateException.class);
    }

    @Test
    void aForeignValueUnderTheRecordOrWindowKeyIsStoreUnavailableNamingIt() {
        IdempotencyKey key = newKey();
        byte[] recordKey = new io.onlyonce.redis.internal.RedisKeys(keyPrefix()).idempotency(key);
        commands().set(recordKey, "garbage".getBytes(UTF_8), io.lettuce.core.SetArgs.Builder.px(60_000));
        assertThatThrownBy(() -> atomic.run(counting(key, newFingerprint(), effectKey("runs"))))
                .isInstanceOf(StoreUnavailableException.class)
                .cause().isInstanceOf(CorruptValueException.class)
                .hasMessageContaining(new String(recordKey, UTF_8));

        Fingerprint window = newFingerprint();
        byte[] windowKey = new io.onlyonce.redis.internal.RedisKeys(keyPrefix()).window(window);
        commands().hset(windowKey, "f".getBytes(UTF_8), "v".getBytes(UTF_8));
        assertThatThrownBy(() -> atomic.run(AtomicCall.of(newKey(), newFingerprint(), RETENTION, COUNTING)
                .keys(effectKey("runs")).args("x").window(window, Duration.ofSeconds(30)).build()))
                .isInstanceOf(StoreUnavailableException.class)
                .cause().isInstanceOf(CorruptValueException.class)
                .hasMessageContaining(new String(windowKey, UTF_8) + ": another Redis type; not written");
    }

    @Test
    void theCallWorksAfterTheScriptCacheIsFlushed() {
        commands().scriptFlush();
        assertThat(atomic.run(counting(newKey(), newFingerprint(), effectKey("runs")))).isInstanceOf(AtomicOutcome.Completed.class);
    }

    interface Indexed<T> {
        T call(int index) throws Exception;
    }

    static <T> List<T> concurrently(int threads, Indexed<T> task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                int index = i;
                Callable<T> call = () -> {
                    start.await();
                    return task.call(index);
                };
                futures.add(pool.submit(call));
            }
            start.countDown();
            List<T> results = new ArrayList<>();
            for (Future<T> future : futures) {
                results.add(future.get());
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
