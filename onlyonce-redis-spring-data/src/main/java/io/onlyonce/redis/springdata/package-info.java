/**
 * The Redis stores of {@code onlyonce-redis} over Spring Data Redis' {@code RedisConnectionFactory}:
 * Jedis, Redisson or Lettuce; see {@link io.onlyonce.redis.springdata.SpringDataRedisStoreConnection}.
 */
@NullMarked
package io.onlyonce.redis.springdata;

import org.jspecify.annotations.NullMarked;
