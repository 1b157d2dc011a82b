package io.onlyonce.spring.messaging;

import io.onlyonce.messaging.JdbcOutbox;
import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.messaging.OutboxRelay;
import io.onlyonce.messaging.PostgresWakeUp;
import java.sql.Connection;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Records messages in the current Spring transaction: the row of the transactional outbox commits
 * or rolls back with the business data, and once the transaction commits the relay is woken to
 * publish at once (it also polls, so nothing waits for long if the wake-up is missed).
 *
 * <pre>{@code
 * @Transactional
 * public void pay(...) {
 *     orders.markPaid(orderNo);
 *     outbox.record(new OutboxMessage(OutboxMessage.id(orderNo, "paid"), "orders", "order.paid", json, headers));
 * }
 * }</pre>
 */
public final class TransactionalOutbox {

    private final DataSource dataSource;
    private final JdbcOutbox outbox;
    private final OutboxRelay relay;
    private final boolean notifyRelays;

    public TransactionalOutbox(DataSource dataSource, JdbcOutbox outbox, OutboxRelay relay) {
        this(dataSource, outbox, relay, false);
    }

    /**
     * An outbox that, with {@code notifyRelays}, also sends PostgreSQL's NOTIFY once per business
     * transaction that records a message ({@link PostgresWakeUp#notifyRelays}), for relays in other
     * instances that listen ({@code onlyonce.messaging.relay.listen-notify}).
     */
    public TransactionalOutbox(DataSource dataSource, JdbcOutbox outbox, OutboxRelay relay, boolean notifyRelays) {
        this.dataSource = dataSource;
        this.outbox = outbox;
        this.relay = relay;
        this.notifyRelays = notifyRelays;
    }

    /**
     * Records {@code message} in the current transaction.
     *
     * @return {@code false} when a message with its id was recorded before (nothing written)
     * @throws IllegalStateException when no transaction is active: a message recorded outside one
     *     would be sent even if the business change rolled back
     */
    public boolean record(OutboxMessage message) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("an outbox message is recorded inside the business transaction"
                    + " (@Transactional), so that it commits or rolls back with it");
        }
        Connection connection = DataSourceUtils.getConnection(dataSource);
        boolean recorded;
        try {
            recorded = outbox.record(connection, message);
            if (recorded && notifyRelays && !TransactionSynchronizationManager.hasResource(this)) {
                PostgresWakeUp.notifyRelays(connection);
            }
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
        if (recorded && TransactionSynchronizationManager.isSynchronizationActive()
                && !TransactionSynchronizationManager.hasResource(this)) {
            TransactionSynchronizationManager.bindResource(this, Boolean.TRUE);
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCompletion(int status) {
                    TransactionSynchronizationManager.unbindResourceIfPossible(TransactionalOutbox.this);
                    if (status == STATUS_COMMITTED) {
                        relay.wakeUp();
                    }
                }
            });
        }
        return recorded;
    }
}
