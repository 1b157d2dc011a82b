package io.onlyonce.example.seckill.fastpath;

import io.onlyonce.example.seckill.support.Redis;
import io.onlyonce.example.seckill.support.ServiceProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * 2,000 users, stock 400, 8,000 attempts; Redis (a server of this class alone, without
 * persistence) killed and started empty while purchases run: the stock, the buyers' marks and the queue are gone. The sale is loaded again from
 * the database under a new epoch; reservations Redis lost end FAILED ({@code reservation-lost}) and
 * their units are on sale again; the database's optimistic lock refuses what Redis sells twice.
 */
class FastPathRedisRestartedIT extends AbstractFastPathScenario {

    static Redis.Private redis;

    @BeforeAll
    static void startRedis() throws Exception {
        redis = Redis.Private.start();
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
    protected boolean losesNothing() {
        return false;
    }

    @Override
    protected double scale() {
        return 0.4;
    }

    @Override
    protected String name() {
        return "fast-path-redis-restarted";
    }
}
