package io.onlyonce.redis.springdata;

import io.onlyonce.redis.AbstractRedisIdempotencyStoreIT;

/** The idempotency store contract on Jedis through its Spring Data {@code RedisConnectionFactory}. */
class JedisIdempotencyStoreIT extends AbstractRedisIdempotencyStoreIT {

    JedisIdempotencyStoreIT() {
        super(() -> new ContractFixture(Client.JEDIS));
    }
}
