package io.onlyonce.spring.autoconfigure;

import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.jdbc.JdbcIdempotencyStore;
import io.onlyonce.jdbc.JdbcSchema;
import io.onlyonce.jdbc.JdbcStoreConfig;
import io.onlyonce.jdbc.JdbcTokenStore;
import io.onlyonce.jdbc.JdbcWindowStore;
import io.onlyonce.spring.method.TransactionJoin;
import io.onlyonce.spring.resilience.StoreProbes;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.token.TokenStore;
import io.onlyonce.window.WindowStore;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * {@code onlyonce.store=jdbc}: the stores on the application's {@code DataSource}, with the schema
 * created on request ({@code onlyonce.jdbc.initialize-schema}) or by the application's Flyway
 * migrations (copy {@code db/onlyonce/<database>/V1__onlyonce_schema.sql}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(JdbcIdempotencyStore.class)
@ConditionalOnProperty(name = "onlyonce.store", havingValue = "jdbc")
@ConditionalOnSingleCandidate(DataSource.class)
@Import(OnlyOnceJdbcSchemaCheck.class)
class OnlyOnceJdbcConfiguration {

    /**
     * The detected dialect, after the schema was created when asked to. Runs after the
     * application's own database initialisation (Flyway, Liquibase, SQL scripts), so that those
     * see the schema they expect.
     */
    @Bean
    @ConditionalOnMissingBean
    @DependsOnDatabaseInitialization
    JdbcDialect onlyOnceJdbcDialect(DataSource dataSource, OnlyOnceProperties properties, JdbcStoreConfig config,
            org.springframework.core.env.Environment environment) {
        StartupDialect.Detected detected = StartupDialect.of(dataSource, environment, "OnlyOnce's JDBC store");
        JdbcDialect dialect = detected.dialect();
        if (!detected.answered()) {
            return dialect;
        }
        OnlyOnceProperties.SchemaInitialization mode = properties.jdbc().initializeSchema();
        if (mode == OnlyOnceProperties.SchemaInitialization.ALWAYS
                || (mode == OnlyOnceProperties.SchemaInitialization.EMBEDDED && dialect == JdbcDialect.H2)) {
            JdbcSchema.apply(dataSource, dialect, config);
        }
        return dialect;
    }

    /** Asks the database whether it answers: a connection of the pool, valid within two seconds. */
    @Bean
    @ConditionalOnMissingBean
    StoreProbes.Probe onlyOnceStoreProbe(DataSource dataSource) {
        return () -> {
            try (Connection connection = dataSource.getConnection()) {
                return connection.isValid(2);
            } catch (SQLException | RuntimeException unavailable) {
                return false;
            }
        };
    }

    @Bean
    @ConditionalOnMissingBean
    JdbcStoreConfig onlyOnceJdbcStoreConfig() {
        return JdbcStoreConfig.defaults();
    }

    /**
     * The idempotency store; with {@code onlyonce.jdbc.join-transaction} it writes through the
     * connection of the Spring transaction active on this DataSource.
     */
    @Bean
    @ConditionalOnMissingBean
    IdempotencyStore onlyOnceIdempotencyStore(DataSource dataSource, JdbcDialect dialect, JdbcStoreConfig config,
            OnlyOnceProperties properties) {
        return new TransactionAwareJdbcIdempotencyStore(dataSource, dialect, config, properties.jdbc().joinTransaction(),
                PoolSize.of(dataSource));
    }

    /** Tells the method advice whether a record is completed inside the active transaction. */
    @Bean
    @ConditionalOnMissingBean
    TransactionJoin onlyOnceTransactionJoin(IdempotencyStore onlyOnceIdempotencyStore) {
        return onlyOnceIdempotencyStore instanceof TransactionAwareJdbcIdempotencyStore store
                ? store::joinsCurrentTransaction
                : TransactionJoin.NEVER;
    }

    /**
     * Warns at start-up when {@code @Idempotent} methods run in transactions while the store does not
     * join them: each such call holds two connections of the pool at once.
     */
    @Bean
    @ConditionalOnMissingBean
    static TransactionalIdempotentMethods onlyOnceTransactionalMethodsCheck(
            org.springframework.core.env.Environment environment) {
        return new TransactionalIdempotentMethods(environment);
    }

    @Bean
    @ConditionalOnMissingBean
    TokenStore onlyOnceTokenStore(DataSource dataSource, JdbcDialect dialect, JdbcStoreConfig config) {
        return new JdbcTokenStore(dataSource, dialect, config);
    }

    @Bean
    @ConditionalOnMissingBean
    WindowStore onlyOnceWindowStore(DataSource dataSource, JdbcDialect dialect, JdbcStoreConfig config) {
        return new JdbcWindowStore(dataSource, dialect, config);
    }
}
