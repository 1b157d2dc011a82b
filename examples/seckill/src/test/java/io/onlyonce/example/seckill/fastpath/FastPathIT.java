package io.onlyonce.example.seckill.fastpath;

import io.onlyonce.example.seckill.support.Redis;
import io.onlyonce.example.seckill.support.ServiceProcess;

/** The fast path's invariants with nothing broken: every unit sold exactly once. */
class FastPathIT extends AbstractFastPathScenario {

    @Override
    protected int redisPort() {
        return Redis.sharedPort();
    }

    @Override
    protected void disrupt(ServiceProcess service) {
        // nothing breaks
    }

    @Override
    protected String name() {
        return "fast-path";
    }
}
