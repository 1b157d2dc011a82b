package io.onlyonce.example.orders;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** PostgreSQL through JdbcClient; OnlyOnce's records in the same database, joined to the business transaction on a pool of four with autocommit off; the transaction advisor first. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@org.springframework.test.context.ActiveProfiles("tx-first")
class PostgresJoinedJdbcTransactionAdvisorFirstIT extends AbstractPostgresUserConfigurationIT {

    static final UserConfiguration CONFIGURATION = UserConfiguration.postgresWithJdbc(true);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        CONFIGURATION.register(registry);
    }

    @Override
    UserConfiguration configuration() {
        return CONFIGURATION;
    }
}
