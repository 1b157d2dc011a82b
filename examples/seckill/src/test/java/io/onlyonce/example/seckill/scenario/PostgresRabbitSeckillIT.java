package io.onlyonce.example.seckill.scenario;

import io.onlyonce.example.seckill.support.ExternalDatabases;
import io.onlyonce.example.seckill.support.RabbitVhosts;
import io.onlyonce.example.seckill.support.Redis;
import org.junit.jupiter.api.AfterAll;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The scenarios on PostgreSQL and Redis with "order paid" going through RabbitMQ (the {@code rabbit}
 * profile), in a virtual host of this class alone.
 */
@ActiveProfiles({"postgres", "redis", "rabbit"})
class PostgresRabbitSeckillIT extends AbstractSeckillScenarios {

    static final String DATABASE = ExternalDatabases.newName();
    static final String PREFIX = Redis.newPrefix();
    static final String VHOST = RabbitVhosts.create();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        behindTheLimits(registry);
        ExternalDatabases.usePostgres(registry, DATABASE);
        Redis.useShared(registry, PREFIX);
        // the synchronous flash-sale path on the Redis stores (the FastPath* tests take the fast path)
        registry.add("seckill.fast-path.enabled", () -> "false");
        registry.add("spring.rabbitmq.host", RabbitVhosts::host);
        registry.add("spring.rabbitmq.port", RabbitVhosts::port);
        registry.add("spring.rabbitmq.virtual-host", () -> VHOST);
    }

    @Override
    protected String transport() {
        return "rabbit";
    }

    @AfterAll
    static void dropDatabase() {
        ExternalDatabases.dropPostgres(DATABASE);
        Redis.deleteKeys(PREFIX);
        RabbitVhosts.delete(VHOST);
    }
}
