package io.onlyonce.example.seckill.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.example.seckill.support.ExternalDatabases;
import io.onlyonce.example.seckill.support.KafkaTopics;
import io.onlyonce.example.seckill.support.Redis;
import io.onlyonce.example.seckill.support.TestSecrets;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;

/**
 * The crash scenario on PostgreSQL, Redis and Kafka (a topic of its own): records the killed process
 * had applied but whose offsets it had not committed are delivered again to the restarted one, whose
 * inboxes drop what was already applied; messages the relay published but did not mark are sent again.
 */
class PostgresKafkaServiceCrashIT extends AbstractServiceCrashScenario {

    static final String DATABASE = ExternalDatabases.newName();
    static final String PREFIX = Redis.newPrefix();
    static final String TOPIC = KafkaTopics.newName();
    static final String URL = ExternalDatabases.createPostgres(DATABASE);

    @AfterAll
    static void cleanUp() {
        ExternalDatabases.dropPostgres(DATABASE);
        Redis.deleteKeys(PREFIX);
        KafkaTopics.delete(TOPIC);
    }

    @Override
    protected List<String> arguments() {
        List<String> arguments = new ArrayList<>(List.of("--spring.profiles.active=postgres,redis,kafka",
                "--spring.datasource.url=" + URL,
                "--spring.datasource.username=" + ExternalDatabases.postgresUser(),
                "--spring.datasource.password=" + ExternalDatabases.postgresPassword(),
                "--onlyonce.redis.key-prefix=" + PREFIX,
                "--seckill.fast-path.key-prefix=" + PREFIX + "fast:",
                "--spring.data.redis.host=" + Redis.sharedHost(), "--spring.data.redis.port=" + Redis.sharedPort(),
                "--spring.kafka.bootstrap-servers=" + KafkaTopics.bootstrap(),
                "--seckill.messaging.exchange=" + TOPIC,
                // the killed instance's consumers leave the groups after 6 s rather than Kafka's 45 s
                "--spring.kafka.consumer.properties.session.timeout.ms=6000",
                "--spring.kafka.consumer.properties.heartbeat.interval.ms=1000"));
        arguments.addAll(TestSecrets.args());
        return arguments;
    }

    @Override
    protected void assertTheBrokerCarried(int orders) throws Exception {
        // every "order paid" once at least; more where the relay sent a message again after the kill
        assertThat(KafkaTopics.records(TOPIC)).isGreaterThanOrEqualTo(orders);
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
        return "crash-postgres-kafka";
    }
}
