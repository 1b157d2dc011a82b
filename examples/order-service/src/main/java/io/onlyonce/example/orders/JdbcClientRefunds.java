package io.onlyonce.example.orders;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.stereotype.Repository;

/** Refunds through Spring's {@link JdbcClient}. */
@Repository
@ConditionalOnProperty(name = "orders.persistence", havingValue = "jdbc-client", matchIfMissing = true)
class JdbcClientRefunds implements Refunds {

    private final JdbcClient jdbc;

    JdbcClientRefunds(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    public Refund insert(String refundNo, long orderId, long amountCents, String owner) {
        GeneratedKeyHolder keys = new GeneratedKeyHolder();
        jdbc.sql("INSERT INTO refunds (refund_no, order_id, amount_cents, owner) VALUES (?, ?, ?, ?)")
                .params(refundNo, orderId, amountCents, owner)
                .update(keys, "id");
        return new Refund(keys.getKeyAs(Number.class).longValue(), refundNo, orderId, amountCents, owner);
    }
}
