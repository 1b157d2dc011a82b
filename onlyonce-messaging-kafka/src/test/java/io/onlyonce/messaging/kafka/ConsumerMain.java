package io.onlyonce.messaging.kafka;

import com.zaxxer.hikari.HikariDataSource;
import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.messaging.ConsumerStats;
import io.onlyonce.messaging.Delivery;
import io.onlyonce.messaging.IdempotentConsumer;
import io.onlyonce.messaging.InboundMessage;
import io.onlyonce.messaging.MessageConsumer;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * An idempotent Kafka consumer in a JVM of its own, for {@link ExactlyOnceKafkaIT} to kill with
 * SIGKILL. Arguments: bootstrap servers, JDBC URL, topic, consumer name, threads, milliseconds a
 * message. Prints {@code STARTED}, then a {@code STATS} line every 200 ms and at a normal shutdown.
 */
public final class ConsumerMain {

    private ConsumerMain() {
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String jdbcUrl = args[1];
        String topic = args[2];
        String name = args[3];
        int threads = Integer.parseInt(args[4]);
        long pauseMillis = Long.parseLong(args[5]);
        HikariDataSource pool = PgDatabase.pool(jdbcUrl, threads + 2);
        IdempotentConsumer inbox = new IdempotentConsumer(name, pool, JdbcDialect.POSTGRESQL, PgDatabase.countEffect(),
                PgDatabase.CONFIG);
        MessageConsumer paced = new MessageConsumer() {
            @Override
            public String name() {
                return inbox.name();
            }

            @Override
            public Delivery process(InboundMessage message) {
                try {
                    Thread.sleep(pauseMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return inbox.process(message);
            }

            @Override
            public ConsumerStats stats() {
                return inbox.stats();
            }
        };
        Map<String, Object> consumerConfig = Map.of("bootstrap.servers", bootstrap, "session.timeout.ms", 6_000,
                "heartbeat.interval.ms", 1_000, "max.poll.records", 100);
        IdempotentKafkaConsumer consumer = IdempotentKafkaConsumer.builder(paced, consumerConfig,
                Map.of("bootstrap.servers", bootstrap)).topic(topic).threads(threads).build();
        CountDownLatch done = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            consumer.close();
            System.out.println("STATS " + consumer.stats());
            System.out.flush();
            pool.close();
            done.countDown();
        }));
        consumer.start();
        System.out.println("STARTED");
        while (!done.await(200, java.util.concurrent.TimeUnit.MILLISECONDS)) {
            System.out.println("STATS " + consumer.stats());
        }
    }
}
