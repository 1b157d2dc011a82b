/**
 * The OnlyOnce stores on a relational database through plain JDBC: PostgreSQL, MySQL or MariaDB,
 * and H2.
 *
 * <pre>{@code
 * JdbcDialect dialect = JdbcDialect.detect(dataSource);
 * JdbcSchema.apply(dataSource, dialect);          // or let Flyway run db/onlyonce/<dialect>
 * IdempotencyStore store = new JdbcIdempotencyStore(dataSource, dialect);
 * }</pre>
 *
 * <p>Every operation is one atomic conditional statement, or a short sequence of them in which
 * each step re-checks its condition, so that no operation checks and then writes. Times are
 * stored as epoch milliseconds and always compared with the {@code now} the caller passes in.
 *
 * <h2>Connections and transactions</h2>
 * Each operation takes a connection from the {@link javax.sql.DataSource} and closes it, and is
 * durable when it returns: with autocommit on every statement commits on its own; on a pool that
 * hands out connections with autocommit off, the store commits its own work (and rolls it back on
 * failure). To make the store's writes part of an application transaction instead, hand it a data
 * source that returns the transaction's connection, for example Spring's
 * {@code TransactionAwareDataSourceProxy}, and set {@link io.onlyonce.jdbc.JdbcStoreConfig#withJoinTransactions
 * joinTransactions}: the store then never commits, a claim commits or rolls back with the business
 * data, and its rows stay locked until the transaction ends. Such transactions should run at READ
 * COMMITTED (the default of PostgreSQL and H2; MySQL and MariaDB default to REPEATABLE READ, under
 * which a claim that races with another transaction can fail with
 * {@link io.onlyonce.StoreUnavailableException}).
 *
 * <h2>Failures</h2>
 * Every {@link java.sql.SQLException} surfaces as {@link io.onlyonce.StoreUnavailableException}
 * naming the operation.
 */
@NullMarked
package io.onlyonce.jdbc;

import org.jspecify.annotations.NullMarked;
