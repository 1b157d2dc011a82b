/**
 * The OnlyOnce stores on a relational database through plain JDBC: PostgreSQL, MySQL or MariaDB,
 * and H2.
 *
 * <pre>{@code
 * JdbcDialect dialect = JdbcDialect.detect(dataSource);    // io.onlyonce.jdbc.sql
 * JdbcSchema.apply(dataSource, dialect);          // or let Flyway run db/onlyonce/<dialect>
 * IdempotencyStore store = new JdbcIdempotencyStore(dataSource, dialect);
 * }</pre>
 *
 * <p>Every decision is one atomic conditional statement, or a short sequence of them in which each
 * step re-checks its condition, so that no operation checks and then writes.
 *
 * <h2>Time</h2>
 * Every expiry (lease, retention, token life, window) is decided on one clock: the database
 * server's. Callers pass durations only; each statement reads the server's current time in SQL and
 * compares or adds to it there, and remaining times ({@code expiresIn}, a window's
 * {@code remaining}) are computed in the same statement. The expressions do not depend on the
 * session time zone: PostgreSQL {@code statement_timestamp()}, MySQL and MariaDB
 * {@code UTC_TIMESTAMP(3)}, H2 {@code EXTRACT(EPOCH FROM CURRENT_TIMESTAMP)}, each as epoch
 * milliseconds. Application instances whose clocks or time zones differ therefore agree on every
 * lease: one whose clock runs ahead can neither take over a running claim, nor pass a second
 * "first" through a window, nor purge live rows. H2 keeps its current time for a whole transaction,
 * so inside a joined transaction its times are those of the transaction's start.
 *
 * <h2>Connections and transactions</h2>
 * Each operation takes a connection from the {@link javax.sql.DataSource} and closes it, and is
 * durable when it returns. Unless it joins the caller's transaction (below), every statement runs
 * as a transaction of its own: with autocommit on the server commits it, with autocommit off the
 * store commits it (or rolls it back) before it runs the next statement. No lock outlives the
 * statement that took it, and no statement decides on a snapshot older than itself, so the stores
 * are correct on pools with autocommit on or off and at every isolation level from READ
 * UNCOMMITTED to SERIALIZABLE. The purge methods commit each batch on its own for the same reason:
 * a purge never holds the locks of a whole table's expired rows against claims.
 *
 * <h2>Isolation levels</h2>
 * On PostgreSQL and H2 the store's own transactions do not depend on the pool's level. At
 * REPEATABLE READ and SERIALIZABLE these databases refuse a write to a row that a concurrent
 * statement changed after the writing statement began (a serialization failure), so that when many
 * requests hit one window at once, writes would fail again and again until their retries ran out.
 * So when a statement of an operation fails that way on a connection at a stricter level, the
 * store lowers the connection to READ COMMITTED for the rest of the operation (the failed
 * statement's next attempt included) and sets it back before it closes the connection, also when
 * the operation fails. Every statement is its own transaction, so no result depends on the level
 * otherwise. Without such a failure nothing is asked of the connection: a pool at READ COMMITTED, or
 * one without contention, pays no round trip for it. MySQL and MariaDB keep the pool's level:
 * InnoDB's writes and locking reads always act on the latest committed row, so a stricter level
 * adds no such failures, and READ COMMITTED would make every write fail on a server whose binary
 * log is statement-based. A joined transaction keeps the caller's level.
 *
 * <h2>Retries</h2>
 * At any level, a database can pick one of the statements that wait for each other's locks as a
 * deadlock victim (a purge batch and a claim, for example), and a serialization failure remains
 * possible where the level is not lowered. Such a statement's transaction is rolled back as a
 * whole, and since the statement is the only one in it, the store runs it again after a random
 * pause of a few milliseconds, up to ten times in all (SQLState {@code 40001} and {@code 40P01};
 * MySQL and MariaDB errors 1213 and 1020; H2 error 90131). Only when the retries are exhausted
 * does the operation fail.
 *
 * <h2>Joining the caller's transaction</h2>
 * To make the store's writes part of an application transaction, hand it a data source that
 * returns the transaction's connection, for example Spring's
 * {@code TransactionAwareDataSourceProxy}, and set
 * {@link io.onlyonce.jdbc.JdbcStoreConfig#withJoinTransactions joinTransactions}: the store then
 * never commits nor rolls back, a claim commits or rolls back with the business data, and its rows
 * stay locked until the transaction ends: a concurrent claim of the same key waits for that
 * transaction and then sees what it committed (the completed record to replay, or nothing when it
 * rolled back). Nor can it retry: a serialization failure or deadlock has rolled back the caller's
 * whole transaction, and surfaces as {@link io.onlyonce.StoreUnavailableException}. On MySQL and
 * MariaDB, whose default level is REPEATABLE READ, a joined store reads the record with a locking
 * read, which sees the latest committed row whatever the transaction's snapshot; on PostgreSQL a
 * joined transaction should run at READ COMMITTED (its default), since at a stricter level a claim
 * that raced with another transaction fails with a serialization failure.
 *
 * <h2>Failures</h2>
 * Every {@link java.sql.SQLException}, including a serialization failure or deadlock that outlived
 * its retries, and every row these stores did not write, surfaces as
 * {@link io.onlyonce.StoreUnavailableException} naming the operation. Durations that are zero or
 * negative are refused with {@link IllegalArgumentException}.
 */
@NullMarked
package io.onlyonce.jdbc;

import org.jspecify.annotations.NullMarked;
