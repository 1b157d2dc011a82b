package io.onlyonce.redis;

import static io.onlyonce.redis.internal.ScriptArgs.decimal;
import static io.onlyonce.redis.internal.ScriptArgs.millis;

import io.lettuce.core.api.StatefulConnection;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.redis.internal.AtomicScript;
import io.onlyonce.redis.internal.CallDeadline;
import io.onlyonce.redis.internal.IdempotencyValue;
import io.onlyonce.redis.internal.RedisKeys;
import io.onlyonce.redis.script.CorruptValueException;
import io.onlyonce.redis.script.LuaScript;
import io.onlyonce.redis.script.ScriptRunner;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.store.StoredResponseCodec;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.window.WindowHit;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * Runs an idempotent effect that is itself a Redis script ({@link RedisEffect}) atomically with its
 * idempotency record: one {@code EVALSHA} checks, in this order, the request window, the one-time
 * token and the record, runs the effect, and writes the completed record with the effect's answer.
 * There is no moment at which the effect has happened and the record does not say so, and no second
 * round trip.
 *
 * <pre>{@code
 * RedisAtomicExecutor atomic = RedisAtomicExecutor.of(connection, RedisStoreConfig.ofDefaults());
 * switch (atomic.run(AtomicCall.of(key, fingerprint, Duration.ofHours(24), reserve).keys(stock).build())) {
 *     case AtomicOutcome.Completed done -> respond(done.response());
 *     case AtomicOutcome.Existing existing -> replayOrReport(existing.record());
 *     case AtomicOutcome.Declined declined -> soldOut(declined.text(0));
 *     case AtomicOutcome.TokenRefused refused -> duplicate(refused.first());
 *     case AtomicOutcome.InWindow repeated -> tooSoon(repeated.hit());
 * }
 * }</pre>
 *
 * <p>The record, the token and the window live under the keys, and in the layouts, of
 * {@link RedisIdempotencyStore}, {@link RedisTokenStore} and {@link RedisWindowStore} with the same
 * {@link RedisStoreConfig}, so those stores see what a call did (a two-step {@code claim} of the key
 * finds the completed record, a {@code find} replays it) and a call sees what they did (a claim in
 * progress answers {@link AtomicOutcome.Existing}). Only a record pinned to a Cluster slot
 * ({@link AtomicCall.Builder#recordSlot(String)}) lives under a key of its own.
 *
 * <p>On a Redis Cluster every key of one call (record, token hash, window, the effect's keys) must
 * hash to one slot: a call whose keys do not is refused with {@link IllegalArgumentException} naming
 * the keys and their slots, before anything is sent. Pin the record and the effect's keys with one
 * hash tag; the token hashes and windows have keys of their own, so on a Cluster they join a call
 * only when the key prefix holds a hash tag (which puts every key of the stores in one slot).
 *
 * <p>Every failure to reach Redis, and a key that holds a value the stores did not write, is a
 * {@link StoreUnavailableException}, as for the stores, within the budget
 * {@link RedisStoreConfig#commandTimeout()}; a call over budget may still have run on the server. A
 * failed effect is an {@link IllegalStateException} (see {@link RedisEffect}). Thread-safe.
 */
public final class RedisAtomicExecutor {

    private final ScriptRunner redis;
    private final RedisKeys keys;
    private final int tokenShards;
    private final CallDeadline deadline;

    private RedisAtomicExecutor(ScriptRunner redis, RedisStoreConfig config, InstantSource clock) {
        this.redis = redis;
        this.keys = new RedisKeys(config.keyPrefix());
        this.tokenShards = config.tokenShards();
        this.deadline = new CallDeadline(redis, config.commandTimeout(), clock);
    }

    /**
     * An executor on a standalone (or Sentinel) or a Cluster connection. The connection must use
     * {@code ByteArrayCodec}; the executor does not close it.
     *
     * @throws IllegalArgumentException for any other kind of connection
     */
    public static RedisAtomicExecutor of(StatefulConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        return of(connection, config, InstantSource.system());
    }

    /** As {@link #of(StatefulConnection, RedisStoreConfig)}, computing deadlines on {@code clock}. */
    static RedisAtomicExecutor of(StatefulConnection<byte[], byte[]> connection, RedisStoreConfig config,
            InstantSource clock) {
        return new RedisAtomicExecutor(LettuceScripts.runner(connection, config.commandTimeout()), config, clock);
    }

    /** An executor on a connection made on first use, which it may share with the stores. */
    public static RedisAtomicExecutor of(RedisStoreConnection connection, RedisStoreConfig config) {
        return of(connection, config, InstantSource.system());
    }

    /**
     * As {@link #of(RedisStoreConnection, RedisStoreConfig)}, on {@code clock}: only a call's deadline
     * is computed on it, from Redis's clock as measured against it.
     */
    static RedisAtomicExecutor of(RedisStoreConnection connection, RedisStoreConfig config, InstantSource clock) {
        return new RedisAtomicExecutor(connection.runner(config.commandTimeout()), config, clock);
    }

    /**
     * Runs the call: one script call.
     *
     * @throws StoreUnavailableException when Redis cannot be reached or answered an error, or a key
     *     holds a value the stores did not write
     * @throws IllegalStateException when the effect failed or answered neither {@code 'complete'}
     *     nor {@code 'decline'} in the documented shape
     * @throws IllegalArgumentException on a Cluster, when the call's keys span several slots
     */
    public AtomicOutcome run(AtomicCall call) {
        Request request = request(call, deadline.next());
        AtomicOutcome outcome = outcome(request, redis.runForList(request.operation, call.effect().script(), request.keys,
                request.args));
        deadline.answered(request.keys[0]);
        return outcome;
    }

    /**
     * {@link #run} without blocking: the stage fails with the exception {@link #run} would throw,
     * also when the budget runs out (the command is then cancelled).
     */
    public CompletionStage<AtomicOutcome> runAsync(AtomicCall call) {
        Request request;
        try {
            request = request(call, deadline.next());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return redis.runForListAsync(request.operation, call.effect().script(), request.keys, request.args)
                .thenApply(answer -> {
                    AtomicOutcome outcome = outcome(request, answer);
                    deadline.answered(request.keys[0]);
                    return outcome;
                });
    }

    /**
     * The live record under {@code key}, as {@link RedisIdempotencyStore#find} reads it; with a
     * {@code recordSlot}, the record a call with that {@link AtomicCall.Builder#recordSlot(String)} wrote.
     *
     * @throws StoreUnavailableException as {@link RedisIdempotencyStore#find} does
     */
    public Optional<IdempotencyRecord> find(IdempotencyKey key, @Nullable String recordSlot) {
        byte[] redisKey = recordKey(key, recordSlot);
        List<@Nullable Object> found = redis.runForList("find", RedisIdempotencyStore.FIND, redisKey);
        return found.isEmpty() ? Optional.empty()
                : Optional.of(RedisIdempotencyStore.record("find", key, redisKey, found));
    }

    private byte[] recordKey(IdempotencyKey key, @Nullable String recordSlot) {
        return recordSlot == null ? keys.idempotency(key) : keys.idempotency(key, recordSlot);
    }

    /** The keys and arguments of one call, in the layout of {@link AtomicScript}. */
    private record Request(String operation, IdempotencyKey key, byte[][] keys, byte[][] args) {
    }

    private Request request(AtomicCall call, byte[] deadline) {
        List<byte[]> callKeys = new ArrayList<>(3 + call.keys().size());
        callKeys.add(recordKey(call.key(), call.recordSlot()));
        byte[] tokenId = new byte[0];
        OneTimeToken token = call.token();
        if (token != null) {
            tokenId = RedisTokenStore.id(token);
            callKeys.add(RedisTokenStore.key(keys, tokenShards, token, tokenId));
        }
        byte[] windowMillis = new byte[0];
        Duration window = call.window();
        if (window != null && call.windowKey() != null) {
            windowMillis = decimal(millis(window, "window"));
            callKeys.add(keys.window(call.windowKey()));
        }
        callKeys.addAll(call.keys());
        byte[] inProgress = IdempotencyValue.inProgress(OwnerToken.random(), call.fingerprint());
        byte[] head = new byte[inProgress.length - 1];
        System.arraycopy(inProgress, 1, head, 0, head.length);
        List<byte[]> args = new ArrayList<>(AtomicScript.LIBRARY_ARGS + call.args().size());
        args.add(head);
        args.add(decimal(millis(call.retention(), "retention")));
        args.add(tokenId);
        args.add(windowMillis);
        args.add(new byte[] {(byte) (call.consumeTokenOnDecline() ? '1' : '0')});
        args.add(deadline);
        args.addAll(call.args());
        return new Request("atomic " + call.effect().name(), call.key(), callKeys.toArray(new byte[0][]),
                args.toArray(new byte[0][]));
    }

    private static AtomicOutcome outcome(Request request, List<@Nullable Object> answer) {
        String operation = request.operation;
        if (answer.isEmpty() || !(answer.get(0) instanceof byte[] tag) || tag.length != 1) {
            throw new StoreUnavailableException(operation, new IllegalStateException("unexpected script answer " + answer));
        }
        byte[] recordKey = request.keys[0];
        switch (tag[0]) {
            case 'l' -> {
                if (answer.size() == 1) {
                    throw new StoreUnavailableException(operation + " (ran after its budget: nothing was done)",
                            new IllegalStateException("Redis ran the call after its deadline"));
                }
            }
            case 'c' -> {
                if (answer.size() != 2 || !(answer.get(1) instanceof byte[] encoded)) {
                    break;
                }
                try {
                    StoredResponse response = StoredResponseCodec.decode(encoded);
                    return new AtomicOutcome.Completed(response);
                } catch (IllegalArgumentException e) {
                    throw new StoreUnavailableException(operation,
                            new CorruptValueException(RedisKeys.text(recordKey), "unreadable response", e));
                }
            }
            case 'd' -> {
                return new AtomicOutcome.Declined(answer.subList(1, answer.size()));
            }
            case 'e' -> {
                return new AtomicOutcome.Existing(
                        RedisIdempotencyStore.record(operation, request.key, recordKey, answer.subList(1, answer.size())));
            }
            case 't' -> {
                return new AtomicOutcome.TokenRefused(answer.size() == 1 ? Optional.empty()
                        : Optional.of(RedisIdempotencyStore.record(operation, request.key, recordKey,
                                answer.subList(1, answer.size()))));
            }
            case 'w' -> {
                if (answer.size() != 3 || !(answer.get(1) instanceof Long count) || !(answer.get(2) instanceof Long left)
                        || count < 1) {
                    break;
                }
                // PTTL is 0 in the last millisecond of a key's life: the window is still open.
                return new AtomicOutcome.InWindow(new WindowHit(count, Duration.ofMillis(Math.max(1, left))));
            }
            default -> {
                // below
            }
        }
        throw new StoreUnavailableException(operation, new IllegalStateException("unexpected script answer " + answer));
    }
}
