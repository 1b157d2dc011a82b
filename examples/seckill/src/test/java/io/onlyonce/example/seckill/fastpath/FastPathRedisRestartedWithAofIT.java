package io.onlyonce.example.seckill.fastpath;

import io.onlyonce.example.seckill.support.Redis;
import org.junit.jupiter.api.BeforeAll;

/**
 * The queue's broker restarted (2,000 users, stock 400, 8,000 attempts): Redis (a server of this
 * class alone, writing every command to its append-only file before answering) killed with SIGKILL
 * and started again while purchases run. Clients and consumers ride over the outage; the queued
 * reservations survive it, so none is lost and every unit is sold once.
 */
class FastPathRedisRestartedWithAofIT extends FastPathRedisRestartedIT {

    /** Hides the parent's: this class's Redis keeps what it acknowledged. */
    @BeforeAll
    static void startRedis() throws Exception {
        redis = Redis.Private.startPersistent();
    }

    @Override
    protected boolean losesNothing() {
        return true;
    }

    @Override
    protected String name() {
        return "fast-path-redis-aof-restarted";
    }
}
