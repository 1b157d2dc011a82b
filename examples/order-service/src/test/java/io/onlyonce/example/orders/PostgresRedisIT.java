package io.onlyonce.example.orders;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** PostgreSQL through JdbcClient, OnlyOnce's records in Redis, Spring's default advisor order. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PostgresRedisIT extends AbstractPostgresUserConfigurationIT {

    static final UserConfiguration CONFIGURATION = UserConfiguration.postgresWithRedis();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        CONFIGURATION.register(registry);
    }

    @Override
    UserConfiguration configuration() {
        return CONFIGURATION;
    }
}
