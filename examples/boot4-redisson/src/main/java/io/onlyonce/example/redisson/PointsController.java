package io.onlyonce.example.redisson;

import io.onlyonce.spring.Idempotent;
import org.redisson.api.RedissonClient;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Grants points once per {@code Idempotency-Key}: the balance lives in Redis, through the
 * application's own Redisson client; OnlyOnce keeps its records through the same Redis.
 */
@RestController
class PointsController {

    record Grant(long points) {
    }

    record Balance(String account, long granted, long balance) {
    }

    private final RedissonClient redisson;
    private final String prefix;

    PointsController(RedissonClient redisson, org.springframework.core.env.Environment environment) {
        this.redisson = redisson;
        this.prefix = environment.getProperty("points.key-prefix", "points:");
    }

    @PostMapping("/accounts/{account}/grants")
    @ResponseStatus(HttpStatus.CREATED)
    @Idempotent
    Balance grant(@PathVariable String account, @RequestBody Grant grant) {
        long balance = redisson.getAtomicLong(prefix + account).addAndGet(grant.points());
        return new Balance(account, grant.points(), balance);
    }
}
