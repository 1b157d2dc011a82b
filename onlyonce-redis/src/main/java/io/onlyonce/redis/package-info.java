/**
 * The idempotency, token and window stores on Redis, through Lettuce: standalone, Sentinel (a
 * standalone connection from a Sentinel {@code RedisURI}) and Cluster. Build them from a
 * {@code ByteArrayCodec} connection with the {@code standalone(...)} or {@code cluster(...)}
 * factory of {@link io.onlyonce.redis.RedisIdempotencyStore},
 * {@link io.onlyonce.redis.RedisTokenStore} and {@link io.onlyonce.redis.RedisWindowStore}, and a
 * {@link io.onlyonce.redis.RedisStoreConfig}.
 *
 * <p>Every operation that reads and writes is one Lua script on exactly one key, so it is atomic
 * and single-slot in a Cluster. Scripts run with {@code EVALSHA}; a {@code NOSCRIPT} answer sends
 * the script once more with {@code EVAL}, which caches it again. Every decision compares against
 * the {@code now} the caller passes, never Redis's clock; every key written carries a TTL measured
 * from that {@code now} that ends at the logical deadline (or later), never earlier, and only
 * reclaims memory. Every Lettuce failure surfaces as {@link io.onlyonce.StoreUnavailableException}.
 *
 * <h2>Key layout</h2>
 * {@code {prefix}} is {@link io.onlyonce.redis.RedisStoreConfig#keyPrefix()} ({@code "oo:"} by
 * default); times are epoch milliseconds.
 * <table>
 *   <caption>Keys written by the stores</caption>
 *   <tr><th>Store</th><th>Key</th><th>Type and value</th><th>TTL</th></tr>
 *   <tr>
 *     <td>idempotency</td>
 *     <td>{@code {prefix}i:{scope}:{name}}</td>
 *     <td>string: status byte {@code P} (in progress) or {@code C} (completed), {@code expiresAt} as
 *       13 zero-padded ASCII digits, the 22-character owner token, the 32 raw fingerprint bytes,
 *       and for {@code C} the response in {@link io.onlyonce.store.StoredResponseCodec} form</td>
 *     <td>until {@code expiresAt}: end of the lease, then of the retention</td>
 *   </tr>
 *   <tr>
 *     <td>token</td>
 *     <td>{@code {prefix}t:{bucket}:{shard}}</td>
 *     <td>hash: field = the 16 raw bytes of the token id; value = {@code expiresAt} while
 *       created, {@code -expiresAt} once consumed</td>
 *     <td>until the end of the bucket's minute plus 1 s</td>
 *   </tr>
 *   <tr>
 *     <td>window</td>
 *     <td>{@code {prefix}w:{fingerprint}}</td>
 *     <td>string: the end of the window</td>
 *     <td>until the end of the window</td>
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
 *   <li>{@code {bucket}} is {@code expiresAt / 60000} (the token's expiry minute) and
 *     {@code {shard}} is the first two id bytes, read as an unsigned big-endian number, modulo
 *     {@link io.onlyonce.redis.RedisStoreConfig#tokenShards()}. The hashes stay small enough for
 *     Redis's listpack encoding (up to {@code hash-max-listpack-entries}, 512 by default, tokens per
 *     hash): about 32 bytes per token when a hash holds about a hundred, against about 117 for a
 *     plain key per token.</li>
 *   <li>{@code {fingerprint}} is the fingerprint in 64 lower-case hex digits.</li>
 * </ul>
 * One string per idempotency record, rather than a hash, keeps memory low: a hash whose response
 * field exceeds 64 bytes would leave the listpack encoding.
 */
@NullMarked
package io.onlyonce.redis;

import org.jspecify.annotations.NullMarked;
