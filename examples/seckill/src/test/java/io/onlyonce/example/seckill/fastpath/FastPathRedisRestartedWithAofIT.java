package io.onlyonce.example.seckill.fastpath;

import io.onlyonce.example.seckill.support.Redis;
import io.onlyonce.example.seckill.support.ServiceProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The queue's broker restarted (2,000 users, stock 400, 8,000 attempts): Redis (a server of this class alone, writing every command to its
 * append-only file before answering) killed with SIGKILL and started again while purchases run.
 * Clients and consumers ride over the outage; the queued reservations survive it, so none is lost
 * and every unit is sold once.
 */
class FastPathRedisRestartedWithAofIT extends AbstractFastPathScenario {

    private static Redis.Private redis;

    @BeforeAll
    static void startRedis() throws Exception {
        redis = Redis.Private.startPersistent();
    }

    @AfterAll
    static void stopRedis() throws InterruptedException {
        if (redis != null) {
            redis.close();
        }
    }

    @Override
    protected int redisPort() {
        return redis.port();
    }

    @Override
    protected void disrupt(ServiceProcess service) throws Exception {
        redis = redis.restart();
    }

    @Override
    protected double scale() {
        return 0.4;
    }

    @Override
    protected String name() {
        return "fast-path-redis-aof-restarted";
    }
}
