package io.onlyonce.example.seckill.scenario;

import io.onlyonce.example.seckill.support.ExternalDatabases;
import io.onlyonce.example.seckill.support.KafkaTopics;
import io.onlyonce.example.seckill.support.Redis;
import org.junit.jupiter.api.AfterAll;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The scenarios on PostgreSQL and Redis with "order paid" going through Kafka (the {@code kafka}
 * profile), on a topic of this class alone.
 */
@ActiveProfiles({"postgres", "redis", "kafka"})
class PostgresKafkaSeckillIT extends AbstractSeckillScenarios {

    static final String DATABASE = ExternalDatabases.newName();
    static final String PREFIX = Redis.newPrefix();
    static final String TOPIC = KafkaTopics.newName();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        behindTheLimits(registry);
        ExternalDatabases.usePostgres(registry, DATABASE);
        Redis.useShared(registry, PREFIX);
        // the synchronous flash-sale path on the Redis stores (the FastPath* tests take the fast path)
        registry.add("seckill.fast-path.enabled", () -> "false");
        registry.add("spring.kafka.bootstrap-servers", KafkaTopics::bootstrap);
        registry.add("seckill.messaging.exchange", () -> TOPIC);
    }

    @Override
    protected String transport() {
        return "kafka";
    }

    @AfterAll
    static void dropDatabase() {
        ExternalDatabases.dropPostgres(DATABASE);
        Redis.deleteKeys(PREFIX);
        KafkaTopics.delete(TOPIC);
    }
}
