package io.onlyonce.spring.messaging.autoconfigure;

import io.onlyonce.jdbc.sql.JdbcDialect;

/**
 * The database that holds the outbox and inbox tables, once their schema is in place.
 *
 * @param dialect the database's dialect
 */
public record MessagingDatabase(JdbcDialect dialect) {
}
