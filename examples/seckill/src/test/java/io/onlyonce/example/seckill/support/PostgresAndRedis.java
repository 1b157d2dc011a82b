package io.onlyonce.example.seckill.support;

import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * The servers of one test class that runs the service on PostgreSQL and Redis outside demo mode: a
 * database of its own on the shared PostgreSQL and a key prefix of its own on the shared Redis.
 *
 * <pre>{@code
 * static final PostgresAndRedis SERVERS = PostgresAndRedis.fresh();
 * @DynamicPropertySource static void servers(DynamicPropertyRegistry registry) { SERVERS.register(registry); }
 * @AfterAll static void drop() { SERVERS.drop(); }
 * }</pre>
 *
 * @param database the PostgreSQL database, created when the service first connects
 * @param prefix the Redis key prefix of the OnlyOnce stores (the fast path's keys under {@code prefix + "fast:"})
 */
public record PostgresAndRedis(String database, String prefix) {

    /** A new database name and key prefix. */
    public static PostgresAndRedis fresh() {
        return new PostgresAndRedis(ExternalDatabases.newName(), Redis.newPrefix());
    }

    /** The test secrets (password-less login open), this database and the shared Redis under this prefix. */
    public void register(DynamicPropertyRegistry registry) {
        TestSecrets.register(registry);
        ExternalDatabases.usePostgres(registry, database);
        Redis.useShared(registry, prefix);
    }

    /** Drops the database and deletes every key under the prefix. */
    public void drop() {
        ExternalDatabases.dropPostgres(database);
        Redis.deleteKeys(prefix);
    }
}
