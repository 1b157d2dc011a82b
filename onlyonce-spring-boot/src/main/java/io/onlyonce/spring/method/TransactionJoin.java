package io.onlyonce.spring.method;

/**
 * Whether the idempotency store writes through the connection of the transaction active on this
 * thread ({@code onlyonce.jdbc.join-transaction=true}). Then a record is completed inside that
 * transaction, so record and effect commit or roll back together; otherwise it is completed after
 * the transaction committed (see {@link TransactionCompletion}).
 */
@FunctionalInterface
public interface TransactionJoin {

    /** A store that never joins: every store but the joined JDBC one. */
    TransactionJoin NEVER = () -> false;

    /** Whether the store's writes on this thread go through the active transaction's connection. */
    boolean joinsCurrentTransaction();
}
