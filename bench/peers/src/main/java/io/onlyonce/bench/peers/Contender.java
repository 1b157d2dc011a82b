package io.onlyonce.bench.peers;

/** One outbox implementation (or the raw publish) as the benchmark drives it. */
interface Contender extends AutoCloseable {

    /** The business table every contender inserts into. */
    String ORDERS_DDL = "CREATE TABLE bench_orders (id VARCHAR(64) PRIMARY KEY, item VARCHAR(64) NOT NULL,"
            + " quantity INTEGER NOT NULL, created_at TIMESTAMPTZ NOT NULL DEFAULT now())";
    /** The business row of each transaction. */
    String INSERT_ORDER = "INSERT INTO bench_orders (id, item, quantity) VALUES (?, ?, ?)";

    /**
     * One business transaction, committed when this returns: the order row and the event in the
     * outbox, in one transaction (the raw contender: the event published, without waiting).
     */
    void transaction(OrderPlaced event) throws Exception;

    /** After a phase's transactions: the raw contender waits for its acknowledgements. */
    default void afterPhase() throws Exception {
    }
}
