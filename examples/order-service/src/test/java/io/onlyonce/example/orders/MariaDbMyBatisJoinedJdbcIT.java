package io.onlyonce.example.orders;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** MariaDB through MyBatis at REPEATABLE READ (its default); OnlyOnce's records joined to the business transaction on a pool of four with autocommit off. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class MariaDbMyBatisJoinedJdbcIT extends AbstractUserConfigurationIT {

    static final UserConfiguration CONFIGURATION = UserConfiguration.mariadbWithJdbc(true);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        CONFIGURATION.register(registry);
    }

    @Override
    UserConfiguration configuration() {
        return CONFIGURATION;
    }
}
