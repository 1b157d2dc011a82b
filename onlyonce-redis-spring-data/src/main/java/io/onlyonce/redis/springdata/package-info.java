/**
 * The Redis stores of {@code onlyonce-redis} over Spring Data Redis' {@code RedisConnectionFactory}:
 * Jedis, Redisson or Lettuce; see {@link io.onlyonce.redis.springdata.SpringDataRedisStoreConnection}.
 * The module implements the SPI {@link io.onlyonce.redis.script.ScriptPort} (two commands,
 * {@code EVALSHA} and {@code EVAL}) and nothing more: the {@code NOSCRIPT} fallback, the budget and
 * what an error reply means are those of {@code onlyonce-redis}'s
 * {@link io.onlyonce.redis.script.ScriptRunner}, as on a Lettuce connection.
 */
@NullMarked
package io.onlyonce.redis.springdata;

import org.jspecify.annotations.NullMarked;
