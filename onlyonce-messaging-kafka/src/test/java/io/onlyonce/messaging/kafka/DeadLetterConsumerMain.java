package io.onlyonce.messaging.kafka;

import com.zaxxer.hikari.HikariDataSource;
import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.messaging.DeadLetterMarks;
import io.onlyonce.messaging.IdempotentConsumer;
import io.onlyonce.messaging.MessageHandler;
import io.onlyonce.messaging.PermanentMessageFailure;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An idempotent Kafka consumer in a JVM of its own, for {@link ExactlyOnceKafkaIT}: static
 * membership ({@code group.instance.id}), a handler that refuses the payload {@code reject} for good
 * and counts an effect for any other, and a dead-letter producer that ends the JVM at its first
 * acknowledgement, or before its first send, as {@code -Donlyonce.test.halt} says ({@link HaltingInterceptor}).
 * Arguments: bootstrap servers, JDBC URL, topic, consumer name, group instance id, whether to keep
 * dead-letter marks. Prints {@code STARTED}.
 */
public final class DeadLetterConsumerMain {

    private DeadLetterConsumerMain() {
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String name = args[3];
        HikariDataSource pool = PgDatabase.pool(args[1], 3);
        MessageHandler effect = PgDatabase.countEffect();
        MessageHandler handler = (message, connection) -> {
            if (message.payload().equals("reject")) {
                throw new PermanentMessageFailure("order " + message.id() + " cancelled");
            }
            effect.handle(message, connection);
        };
        IdempotentConsumer inbox = new IdempotentConsumer(name, pool, JdbcDialect.POSTGRESQL, handler, PgDatabase.CONFIG);
        Map<String, Object> consumerConfig = new HashMap<>(Map.of("bootstrap.servers", bootstrap,
                "group.instance.id", args[4], "session.timeout.ms", 10_000, "heartbeat.interval.ms", 1_000));
        Map<String, Object> producerConfig = Map.of("bootstrap.servers", bootstrap,
                "interceptor.classes", HaltingInterceptor.class.getName());
        IdempotentKafkaConsumer.Builder builder = IdempotentKafkaConsumer.builder(inbox, consumerConfig, producerConfig)
                .topic(args[2]);
        if (Boolean.parseBoolean(args[5])) {
            builder.deadLetterMarks(new DeadLetterMarks(pool, JdbcDialect.POSTGRESQL));
        }
        IdempotentKafkaConsumer consumer = builder.build();
        CountDownLatch done = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            consumer.close();
            pool.close();
            done.countDown();
        }));
        consumer.start();
        System.out.println("STARTED");
        System.out.flush();
        done.await(10, TimeUnit.MINUTES);
    }
}
