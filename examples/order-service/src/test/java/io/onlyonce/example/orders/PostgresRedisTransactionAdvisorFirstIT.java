package io.onlyonce.example.orders;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** As {@link PostgresRedisIT}, with the transaction advisor ordered before every other advice. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@org.springframework.test.context.ActiveProfiles("tx-first")
class PostgresRedisTransactionAdvisorFirstIT extends AbstractPostgresUserConfigurationIT {

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
