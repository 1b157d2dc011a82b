package io.onlyonce.redis.springdata;

import io.onlyonce.redis.AbstractRedisIdempotencyStoreIT;

/** The idempotency store contract on Redisson through its Spring Data {@code RedisConnectionFactory}. */
class RedissonIdempotencyStoreIT extends AbstractRedisIdempotencyStoreIT {

    RedissonIdempotencyStoreIT() {
        super(() -> new ContractFixture(Client.REDISSON));
    }
}
