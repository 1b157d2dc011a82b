/**
 * The idempotency, token and window stores on Redis, through Lettuce: standalone, Sentinel (a
 * standalone connection from a Sentinel {@code RedisURI}) and Cluster. Build them from a
 * {@code ByteArrayCodec} connection with the {@code standalone(...)}, {@code cluster(...)} or
 * {@code of(...)} factory of {@link io.onlyonce.redis.RedisIdempotencyStore},
 * {@link io.onlyonce.redis.RedisTokenStore} and {@link io.onlyonce.redis.RedisWindowStore}, and a
 * {@link io.onlyonce.redis.RedisStoreConfig}; or from a
 * {@link io.onlyonce.redis.RedisStoreConnection}, made on first use, so that the application
 * starts while Redis is down.
 *
 * <p>Every store call has a budget, {@link io.onlyonce.redis.RedisStoreConfig#commandTimeout()}
 * (2 s by default): it waits for its connection and its answer at most that long, whatever the
 * connection's own command timeout, and then throws {@link io.onlyonce.StoreUnavailableException}.
 *
 * <p>Every operation of the stores is one Lua script on exactly one key, so it is atomic and
 * single-slot in a Cluster. Every store runs its scripts with the one
 * {@link io.onlyonce.redis.script.ScriptRunner} (package {@link io.onlyonce.redis.script}): with
 * {@code EVALSHA}, and after a {@code NOSCRIPT} answer once more with {@code EVAL}, which caches
 * the script again. Every Lettuce failure surfaces as {@link io.onlyonce.StoreUnavailableException}.
 * {@link io.onlyonce.redis.RedisIdempotencyStore}, {@link io.onlyonce.redis.RedisWindowStore} and
 * {@link io.onlyonce.redis.RedisAtomicExecutor} also answer without blocking, on the runner's
 * asynchronous calls.
 *
 * <h2>One script: the record and its effect</h2>
 * When the effect of an idempotent request is itself a Redis script (take a unit of stock, mark
 * the buyer, {@code XADD} the reservation), {@link io.onlyonce.redis.RedisAtomicExecutor} runs it in
 * the same script call as its record: one {@code EVALSHA}, so there is no moment at which the effect
 * has happened and the record does not say so, and no second round trip. The effect is a
 * {@link io.onlyonce.redis.RedisEffect}, Lua written as a standalone script of its own
 * {@code KEYS} and {@code ARGV}; the library wraps it as a local function and adds its own part
 * around it. One call ({@link io.onlyonce.redis.AtomicCall}) does, in this order:
 * <ol>
 *   <li>optionally, a request-window hit on the key and with the semantics of
 *     {@link io.onlyonce.redis.RedisWindowStore}: a hit while the window is open is counted and
 *     answered {@link io.onlyonce.redis.AtomicOutcome.InWindow}; nothing else happens;</li>
 *   <li>optionally, a one-time token as {@link io.onlyonce.redis.RedisTokenStore} keeps it, judged on
 *     Redis's {@code TIME}: unknown, used or expired answers
 *     {@link io.onlyonce.redis.AtomicOutcome.TokenRefused}, with the record under the call's key if
 *     there is one (the first answer, when the key is derived from the token);</li>
 *   <li>the record, as {@link io.onlyonce.redis.RedisIdempotencyStore} keeps it: a live one, in
 *     progress or completed, answers {@link io.onlyonce.redis.AtomicOutcome.Existing} exactly as a
 *     claim would (replay, in progress, or a mismatch by fingerprint), and the token stays as it
 *     is;</li>
 *   <li>the effect. {@code {'complete', status, body, [name, value]...}} writes the record completed
 *     with that response (encoded in Lua byte for byte as
 *     {@link io.onlyonce.store.StoredResponseCodec} encodes it, kept for the call's retention as
 *     {@code PX}), consumes the token and answers
 *     {@link io.onlyonce.redis.AtomicOutcome.Completed}. {@code {'decline', values...}} writes no
 *     record, consumes the token unless the call says otherwise, and answers
 *     {@link io.onlyonce.redis.AtomicOutcome.Declined} with the values.</li>
 * </ol>
 * The first hit of a window opens it whatever the call answers, except when the effect failed.
 * Every write of the library follows the effect's answer; the effect itself must decide before it
 * writes, because Redis does not roll back what a script wrote before an error. A Lua error in the
 * effect, a command Redis refuses it, or an answer of another shape (a status outside 100 to 599, a
 * header that {@link io.onlyonce.StoredResponse} would not take) throws
 * {@link java.lang.IllegalStateException} naming the effect (a refusal that is the server's state,
 * {@code OOM} or {@code READONLY}, is a {@link io.onlyonce.StoreUnavailableException}), and the
 * library writes nothing: no record, no token consumed, no window opened. As in any script, the effect may read and write
 * only the keys it is given.
 *
 * <p>The record, token and window keys are those of the stores with the same
 * {@link io.onlyonce.redis.RedisStoreConfig}, so the stores see a fused call's record (a
 * {@code find} replays it, a two-step {@code claim} finds it) and a fused call sees theirs. On a
 * Redis Cluster every key of one call must hash to one slot: a call whose keys do not is refused
 * with {@link java.lang.IllegalArgumentException} naming the keys and their slots, before anything
 * is sent. Pin the record to the effect's slot with
 * {@link io.onlyonce.redis.AtomicCall.Builder#recordSlot(String)} (the record key then carries the
 * hash tag, see below) and name the effect's keys with the same tag. Token hashes and windows have
 * keys of their own slots, so on a Cluster they join a call only when the key prefix holds a hash
 * tag, which puts every key of the stores in one slot.
 *
 * <h2>Time: Redis's clock</h2>
 * No application clock takes part in any decision, so instances whose clocks differ by minutes
 * agree on every lease, retention, window and token. Leases, retentions and windows are the keys'
 * own TTLs, set as relative {@code PX}/{@code PEXPIRE} and counted down by Redis, which never
 * returns a key whose TTL has passed. Token hashes hold one expiry per token, computed in the
 * script from Redis's {@code TIME} plus the TTL, and compared with {@code TIME} again. Time left
 * ({@code IdempotencyRecord.expiresIn()}, {@code WindowHit.remaining()}) is the key's {@code PTTL},
 * read in the same script. Redis servers' own clocks should be NTP-synchronised: after a failover
 * the replica's clock takes over.
 *
 * <h2>Eviction</h2>
 * Every key carries a TTL, so any {@code maxmemory-policy} but {@code noeviction} lets Redis evict
 * them when memory runs out ({@code volatile-ttl} evicts running claims first), and an evicted
 * record lets its request run twice. Run Redis with {@code maxmemory-policy noeviction}, or give
 * the stores an instance of their own; {@link io.onlyonce.redis.RedisEvictionPolicy#check} reports
 * a server that can evict.
 *
 * <h2>Key layout</h2>
 * {@code {prefix}} is {@link io.onlyonce.redis.RedisStoreConfig#keyPrefix()} ({@code "oo:"} by
 * default).
 * <table>
 *   <caption>Keys written by the stores</caption>
 *   <tr><th>Store</th><th>Key</th><th>Type and value</th><th>TTL</th></tr>
 *   <tr>
 *     <td>idempotency</td>
 *     <td>{@code {prefix}i:{scope}:{name}}</td>
 *     <td>string: status byte {@code R} (in progress), {@code D} (completed, response follows) or
 *       {@code N} (completed, response not kept), the 22-character owner token, the 32 raw
 *       fingerprint bytes, and for {@code D} the response in
 *       {@link io.onlyonce.store.StoredResponseCodec} form</td>
 *     <td>the lease while {@code R}, then the retention from completion</td>
 *   </tr>
 *   <tr>
 *     <td>idempotency, pinned to a slot</td>
 *     <td>{@code {prefix}i{tag}:{scope}:{name}}</td>
 *     <td>as above; written by a fused call with
 *       {@link io.onlyonce.redis.AtomicCall.Builder#recordSlot(String)}, read by
 *       {@link io.onlyonce.redis.RedisAtomicExecutor#find(io.onlyonce.IdempotencyKey, String)}.
 *       The braces around {@code tag} are literal: a Cluster hash tag, so the record shares the
 *       slot of every key with <code>{tag}</code></td>
 *     <td>as above</td>
 *   </tr>
 *   <tr>
 *     <td>token</td>
 *     <td>{@code {prefix}t:{bucket}:{shard}}</td>
 *     <td>hash: field = the 16 raw bytes of the token id; value = the token's expiry in epoch
 *       milliseconds of Redis's clock ({@code TIME} at save plus the TTL) while created, negated
 *       once consumed</td>
 *     <td>the longest TTL saved into the hash plus 1 s; never shortened</td>
 *   </tr>
 *   <tr>
 *     <td>window</td>
 *     <td>{@code {prefix}w:{fingerprint}}</td>
 *     <td>string: the number of hits in the window, from {@code 1}; a window opened by the gateway
      for a request with an {@code Idempotency-Key} is {@code {count}:{opener}}, the opener being
      hex digits of the key's SHA-256</td>
 *     <td>the window, from its first hit; repeats do not extend it</td>
 *   </tr>
 * </table>
 * <ul>
 *   <li>{@code {scope}} is the UTF-8 scope with {@code %}, {@code :}, <code>{</code> and
 *     <code>}</code> written as {@code %25}, {@code %3A}, {@code %7B} and {@code %7D}, so the first
 *     colon after {@code i:} ends the scope and scopes and names cannot run into each other.
 *     {@code {name}} is the key name (visible ASCII) with {@code %} and the braces escaped the same
 *     way. With no brace left, no part of the key forms a Cluster hash tag: a scope holding a route
 *     template such as <code>POST /orders/{id}</code> would otherwise put all its keys in one
 *     slot.</li>
 *   <li>{@code {bucket}} is the minute of the expiry the issuer signed into the token
 *     ({@code expiresAt / 60000}): only an address every instance derives from the token alone,
 *     never a judge of the token's life. {@code {shard}} is the first two id bytes, read as an
 *     unsigned big-endian number, modulo {@link io.onlyonce.redis.RedisStoreConfig#tokenShards()}.
 *     The hashes stay small enough for Redis's listpack encoding (up to
 *     {@code hash-max-listpack-entries}, 512 by default, tokens per hash): 36 bytes per token at
 *     10,000 tokens a minute with 256 shards, against 133 for a plain key per token.</li>
 *   <li>{@code {fingerprint}} is the fingerprint in 64 lower-case hex digits.</li>
 * </ul>
 * One string per idempotency record, rather than a hash, keeps memory low: a hash whose response
 * field exceeds 64 bytes would leave the listpack encoding.
 *
 * <h2>Values the stores did not write</h2>
 * A key under the prefix that holds another Redis type, another layout (including the first
 * layout of these stores, whose status bytes were {@code P} and {@code C}), a malformed value or a
 * value without TTL makes every operation on it throw {@link io.onlyonce.StoreUnavailableException}
 * whose cause says the value is corrupt and names the key; nothing is overwritten. Delete the key
 * (or wait for its TTL) to recover.
 */
@NullMarked
package io.onlyonce.redis;

import org.jspecify.annotations.NullMarked;
