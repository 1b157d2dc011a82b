package io.onlyonce.example.orders;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** MariaDB through MyBatis; OnlyOnce's records in the same database, each store statement committed on a connection of its own (not joined). */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class MariaDbMyBatisJdbcIT extends AbstractUserConfigurationIT {

    static final UserConfiguration CONFIGURATION = UserConfiguration.mariadbWithJdbc(false);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        CONFIGURATION.register(registry);
    }

    @Override
    UserConfiguration configuration() {
        return CONFIGURATION;
    }
}
