package io.onlyonce.spring.messaging;

import io.onlyonce.messaging.TransactionRunner;
import java.sql.Connection;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs a consumer's delivery in a new Spring-managed transaction on the application's
 * {@code DataSource}: the inbox row and whatever the handler writes through the same data source
 * ({@code JdbcTemplate}, {@code JdbcClient}) commit or roll back together. A failure of the work is
 * rethrown unchanged after the rollback.
 */
public final class SpringTransactionRunner implements TransactionRunner {

    private final DataSource dataSource;
    private final TransactionTemplate transactions;

    public SpringTransactionRunner(DataSource dataSource, PlatformTransactionManager transactionManager) {
        this.dataSource = dataSource;
        this.transactions = new TransactionTemplate(transactionManager);
        this.transactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        this.transactions.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
    }

    /** Carries the work's own failure through the template, which rolls back on it. */
    private static final class WorkFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        WorkFailed(Throwable cause) {
            super(cause);
        }
    }

    @Override
    public <T extends @Nullable Object> T inTransaction(Work<T> work) throws Exception {
        try {
            return transactions.execute(status -> {
                Connection connection = DataSourceUtils.getConnection(dataSource);
                try {
                    return work.run(connection);
                } catch (Exception failure) {
                    throw new WorkFailed(failure);
                } finally {
                    DataSourceUtils.releaseConnection(connection, dataSource);
                }
            });
        } catch (WorkFailed failed) {
            Throwable cause = failed.getCause();
            if (cause instanceof Exception exception) {
                throw exception;
            }
            throw failed;
        }
    }
}
