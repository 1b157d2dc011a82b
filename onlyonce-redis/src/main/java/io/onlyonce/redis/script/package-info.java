/**
 * The one way OnlyOnce runs Lua scripts on Redis: {@link io.onlyonce.redis.script.ScriptRunner},
 * over a {@link io.onlyonce.redis.script.ScriptPort} for each client (Lettuce here, Spring Data
 * Redis in {@code onlyonce-redis-spring-data}). The runner owns what every caller needs alike:
 * {@code EVALSHA} first and {@code EVAL} once after {@code NOSCRIPT}, the budget of each call,
 * connection failures and timeouts as {@link io.onlyonce.StoreUnavailableException}, and what an
 * error reply means, including a value the script did not write
 * ({@link io.onlyonce.redis.script.CorruptValueException}). Each call is blocking or, in its
 * {@code Async} form, answers a {@link java.util.concurrent.CompletableFuture} without blocking the
 * caller (the gateway adapts it to Reactor).
 *
 * <p>The SPI for another client is {@link io.onlyonce.redis.script.ScriptPort}: two commands and
 * the failures it may throw ({@link io.onlyonce.redis.script.ScriptErrorReply} for an error reply);
 * {@link io.onlyonce.redis.script.ClusterSlots} is the Cluster check a port makes before sending.
 * {@link io.onlyonce.redis.script.LuaScript} is a script and its SHA-1.
 */
@NullMarked
package io.onlyonce.redis.script;

import org.jspecify.annotations.NullMarked;
