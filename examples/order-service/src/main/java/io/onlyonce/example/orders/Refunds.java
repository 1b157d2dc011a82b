package io.onlyonce.example.orders;

/** Where refunds are written: JdbcClient ({@code orders.persistence=jdbc-client}) or MyBatis ({@code mybatis}). */
public interface Refunds {

    /** Inserts a refund and returns it with its id. */
    Refund insert(String refundNo, long orderId, long amountCents, String owner);
}
