package io.onlyonce.example.seckill.scenario;

import io.onlyonce.example.seckill.support.ExternalDatabases;
import io.onlyonce.example.seckill.support.RabbitVhosts;
import io.onlyonce.example.seckill.support.Redis;
import io.onlyonce.example.seckill.support.TestSecrets;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;

/**
 * The crash scenario on PostgreSQL, Redis and RabbitMQ (a virtual host of its own): messages the
 * killed process had received but not acknowledged are delivered again to the restarted one, whose
 * inboxes drop what was already applied.
 */
class PostgresRabbitServiceCrashIT extends AbstractServiceCrashScenario {

    static final String DATABASE = ExternalDatabases.newName();
    static final String PREFIX = Redis.newPrefix();
    static final String VHOST = RabbitVhosts.create();
    static final String URL = ExternalDatabases.createPostgres(DATABASE);

    @AfterAll
    static void cleanUp() {
        ExternalDatabases.dropPostgres(DATABASE);
        Redis.deleteKeys(PREFIX);
        RabbitVhosts.delete(VHOST);
    }

    @Override
    protected List<String> arguments() {
        List<String> arguments = new ArrayList<>(List.of("--spring.profiles.active=postgres,redis,rabbit",
                "--spring.datasource.url=" + URL,
                "--spring.datasource.username=" + ExternalDatabases.postgresUser(),
                "--spring.datasource.password=" + ExternalDatabases.postgresPassword(),
                "--onlyonce.redis.key-prefix=" + PREFIX,
                "--seckill.fast-path.key-prefix=" + PREFIX + "fast:",
                "--spring.data.redis.host=" + Redis.sharedHost(), "--spring.data.redis.port=" + Redis.sharedPort(),
                "--spring.rabbitmq.host=" + RabbitVhosts.host(), "--spring.rabbitmq.port=" + RabbitVhosts.port(),
                "--spring.rabbitmq.virtual-host=" + VHOST));
        arguments.addAll(TestSecrets.args());
        return arguments;
    }

    @Override
    protected Connection connect() throws Exception {
        return jdbc(URL, ExternalDatabases.postgresUser(), ExternalDatabases.postgresPassword());
    }

    @Override
    protected String paymentSecret() {
        return TestSecrets.PAYMENT;
    }

    @Override
    protected String name() {
        return "crash-postgres-rabbit";
    }
}
