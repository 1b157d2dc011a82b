package io.onlyonce.example.seckill.db;

import javax.sql.DataSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class DatabaseConfiguration {

    @Bean
    SqlDialect sqlDialect(DataSource dataSource) {
        return SqlDialect.detect(dataSource);
    }
}
