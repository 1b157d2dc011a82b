package io.onlyonce.example.seckill.fastpath;

import io.onlyonce.example.seckill.support.Redis;
import io.onlyonce.example.seckill.support.ServiceProcess;

/**
 * 2,000 users, stock 400, 8,000 attempts; the service killed with SIGKILL ({@code kill -9}) while purchases run and batches are being
 * written, then started again: reservations it had taken but not acknowledged are taken over after
 * the claim time and written once; clients resend what got no answer.
 */
class FastPathServiceKilledIT extends AbstractFastPathScenario {

    @Override
    protected int redisPort() {
        return Redis.sharedPort();
    }

    @Override
    protected void disrupt(ServiceProcess service) throws Exception {
        service.kill();
        Thread.sleep(1_000);
        service.start();
    }

    @Override
    protected double scale() {
        return 0.4;
    }

    @Override
    protected String name() {
        return "fast-path-killed";
    }
}
