/**
 * The SQL every OnlyOnce table is written with, shared by the stores and the message layer's outbox
 * and inbox: the {@link io.onlyonce.jdbc.sql.JdbcDialect dialects}, one operation on a connection
 * with its retries of transient failures and its caller's transaction ({@link io.onlyonce.jdbc.sql.Jdbc}),
 * an insert that keeps the existing row ({@link io.onlyonce.jdbc.sql.InsertIfAbsent}) and the
 * database server's clock ({@link io.onlyonce.jdbc.sql.ServerClock}).
 */
@NullMarked
package io.onlyonce.jdbc.sql;

import org.jspecify.annotations.NullMarked;
