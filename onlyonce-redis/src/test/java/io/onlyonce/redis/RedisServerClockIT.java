package io.onlyonce.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.store.RecordStatus;
import io.onlyonce.token.IssuedToken;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenConfig;
import io.onlyonce.token.TokenService;
import io.onlyonce.token.TokenVerification;
import io.onlyonce.window.WindowHit;
import io.onlyonce.window.WindowStore;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two application instances, each with its own Lettuce client, agree on every lease, window and
 * token although their clocks differ by minutes: no decision uses an application clock. Time is
 * moved on the server side, by shortening a key's TTL with {@code PEXPIRE} (what Redis's clock
 * passing does to it), and the stores follow.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisServerClockIT {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration RETENTION = Duration.ofHours(24);
    private static final Duration SKEW = Duration.ofMinutes(7);
    private static final byte[] SECRET = "0123456789abcdef0123456789abcdef-secret".getBytes(StandardCharsets.US_ASCII);
    private final Map<RedisFixture.Topology, RedisFixture> fixtures = new EnumMap<>(RedisFixture.Topology.class);

    @BeforeAll
    void connect() {
        for (RedisFixture.Topology topology : RedisFixture.Topology.values()) {
            fixtures.put(topology, new RedisFixture(topology));
        }
    }

    @AfterAll
    void deleteKeysAndDisconnect() throws Exception {
        for (RedisFixture fixture : fixtures.values()) {
            fixture.close();
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @EnumSource(RedisFixture.Topology.class)
    void aLeaseIsTheKeysTtlOnRedisAndEveryInstanceFollowsIt(RedisFixture.Topology topology) throws Exception {
        RedisFixture redis = fixtures.get(topology);
        IdempotencyStore ahead = RedisIdempotencyStore.of(redis.connection(), redis.config());
        IdempotencyStore behind = RedisIdempotencyStore.of(redis.secondConnection(), redis.config());
        RedisClusterCommands<byte[], byte[]> commands = redis.commands();
        IdempotencyKey key = new IdempotencyKey("scope", "clock-" + UUID.randomUUID());
        byte[] redisKey = bytes(redis.config().keyPrefix() + "i:scope:" + key.name());

        OwnerToken owner = ((ClaimResult.Claimed) ahead.claim(key, Fingerprint.of("a"), LEASE)).owner();
        commands.pexpire(redisKey, 2_500);
        IdempotencyRecord seen = ((ClaimResult.Existing) behind.claim(key, Fingerprint.of("a"), LEASE)).record();
        assertThat(seen.owner()).isEqualTo(owner);
        assertThat(seen.expiresIn().toMillis()).as("what is left on Redis, not on anyone's clock").isBetween(1L, 2_500L);
        assertThat(commands.pttl(redisKey)).isBetween(1L, seen.expiresIn().toMillis());

        commands.pexpire(redisKey, 1);
        Thread.sleep(20);
        OwnerToken takeover = ((ClaimResult.Claimed) behind.claim(key, Fingerprint.of("a"), LEASE)).owner();
        assertThat(ahead.complete(key, owner, StoredResponse.of(201, new byte[] {1}), RETENTION)).isFalse();
        assertThat(behind.complete(key, takeover, StoredResponse.of(201, new byte[] {2}), RETENTION)).isTrue();
        IdempotencyRecord completed = ahead.find(key).orElseThrow();
        assertThat(completed.status()).isEqualTo(RecordStatus.COMPLETED);
        assertThat(completed.response().body()).containsExactly(2);
        assertThat(completed.expiresIn().toMillis()).isBetween(commands.pttl(redisKey), RETENTION.toMillis());
    }

    @ParameterizedTest
    @EnumSource(RedisFixture.Topology.class)
    void aWindowOpenedThroughOneInstanceIsNotFirstThroughAnother(RedisFixture.Topology topology) throws Exception {
        RedisFixture redis = fixtures.get(topology);
        WindowStore one = RedisWindowStore.of(redis.connection(), redis.config());
        WindowStore other = RedisWindowStore.of(redis.secondConnection(), redis.config());
        Fingerprint fingerprint = Fingerprint.of("POST", "/orders", UUID.randomUUID().toString());
        byte[] redisKey = bytes(redis.config().keyPrefix() + "w:" + fingerprint.hex());
        Duration window = Duration.ofSeconds(10);

        WindowHit first = one.hit(fingerprint, window);
        assertThat(first).isEqualTo(new WindowHit(1, window));
        WindowHit second = other.hit(fingerprint, window);
        assertThat(second.count()).isEqualTo(2);
        assertThat(second.remaining()).isLessThanOrEqualTo(window);
        assertThat(redis.commands().pttl(redisKey)).isBetween(1L, second.remaining().toMillis());

        redis.commands().pexpire(redisKey, 1);
        Thread.sleep(20);
        assertThat(other.hit(fingerprint, window).first()).as("the window ended on Redis's clock").isTrue();
        assertThat(one.hit(fingerprint, window).count()).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(RedisFixture.Topology.class)
    void tokensOfIssuersWhoseClocksDifferByMinutesLiveExactlyTheirTtlOnRedis(RedisFixture.Topology topology) throws Exception {
        RedisFixture redis = fixtures.get(topology);
        TokenConfig config = TokenConfig.of(SECRET).withTtl(Duration.ofMinutes(10));
        TokenService ahead = new TokenService(RedisTokenStore.of(redis.connection(), redis.config()), config,
                Clock.offset(Clock.systemUTC(), SKEW));
        TokenService behind = new TokenService(RedisTokenStore.of(redis.secondConnection(), redis.config()), config,
                Clock.offset(Clock.systemUTC(), SKEW.negated()));

        OneTimeToken fromAhead = verified(behind, ahead.issue("alice", "order:create"));
        assertThat(behind.consume(fromAhead)).isTrue();
        assertThat(ahead.consume(fromAhead)).isFalse();
        assertThat(ahead.restore(fromAhead)).isTrue();
        assertThat(behind.consume(fromAhead)).isTrue();

        OneTimeToken fromBehind = verified(ahead, behind.issue("alice", "order:create"));
        assertThat(fromBehind.expiresAt()).as("signed as expiring before the issuer's peers' now").isBefore(
                Clock.offset(Clock.systemUTC(), SKEW).instant());
        assertThat(ahead.consume(fromBehind)).as("alive for its TTL on Redis").isTrue();

        TokenService briefAhead = new TokenService(RedisTokenStore.of(redis.connection(), redis.config()),
                TokenConfig.of(SECRET).withTtl(Duration.ofMillis(400)), Clock.offset(Clock.systemUTC(), SKEW));
        OneTimeToken brief = verified(behind, briefAhead.issue("alice", "order:create"));
        Thread.sleep(500);
        assertThat(brief.expiresAt()).as("signed to live minutes longer on the consumer's clock")
                .isAfter(Clock.offset(Clock.systemUTC(), SKEW.negated()).instant().plus(Duration.ofMinutes(10)));
        assertThat(behind.consume(brief)).as("dead after its TTL on Redis").isFalse();
    }

    private static OneTimeToken verified(TokenService service, IssuedToken issued) {
        return ((TokenVerification.Valid) service.verify(issued.value(), "alice", "order:create")).token();
    }
}
