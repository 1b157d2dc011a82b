package io.onlyonce.spring.autoconfigure;

import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.jdbc.JdbcSchema;
import io.onlyonce.jdbc.JdbcStoreConfig;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;

/**
 * Fails start-up when the JDBC store's tables do not exist once the application's database
 * initialisation and {@code onlyonce.jdbc.initialize-schema} are done (see {@link SchemaCheck}).
 * Imported by {@link OnlyOnceJdbcConfiguration}, so it applies exactly when the JDBC store does.
 */
@Configuration(proxyBeanMethods = false)
class OnlyOnceJdbcSchemaCheck {

    /** Backs off for a bean of this name: an application that checks its schema itself. */
    @Bean
    @ConditionalOnMissingBean(name = "onlyOnceJdbcSchemaCheck")
    @Lazy(false)
    @DependsOnDatabaseInitialization
    SchemaCheck onlyOnceJdbcSchemaCheck(DataSource dataSource, JdbcDialect dialect, JdbcStoreConfig config) {
        SchemaCheck check = new SchemaCheck("OnlyOnce's JDBC store (onlyonce.store=jdbc)",
                List.of(config.idempotencyTable(), config.tokenTable(), config.windowTable()),
                dialect.schemaLocation(), JdbcSchema.SCRIPT_NAME, "onlyonce.jdbc.initialize-schema");
        check.verify(dataSource, dialect);
        return check;
    }
}
