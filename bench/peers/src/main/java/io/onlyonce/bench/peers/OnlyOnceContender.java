package io.onlyonce.bench.peers;

import com.zaxxer.hikari.HikariDataSource;
import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.messaging.JdbcOutbox;
import io.onlyonce.messaging.MessageTransport;
import io.onlyonce.messaging.MessagingSchema;
import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.messaging.OutboxRelay;
import io.onlyonce.messaging.RelayConfig;
import io.onlyonce.messaging.kafka.KafkaMessageTransport;
import io.onlyonce.messaging.rabbit.RabbitMessageTransport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory.ConfirmType;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/**
 * OnlyOnce: {@link JdbcOutbox#record} in the business transaction, one {@link OutboxRelay} with
 * {@link RelayConfig#ofDefaults()} woken after each commit (the relay's class comment: "as soon as
 * wakeUp() is called (after each business commit that recorded a message)"), on
 * {@link KafkaMessageTransport#create} (acks=all, idempotence, linger.ms 5: its defaults) or
 * {@link RabbitMessageTransport} on a template with correlated confirms, returns and mandatory (the
 * configuration its class comment requires). The table is made by {@link MessagingSchema#apply}.
 */
final class OnlyOnceContender implements Contender {

    private final HikariDataSource dataSource;
    private final JdbcOutbox outbox = new JdbcOutbox(JdbcDialect.POSTGRESQL);
    private final MessageTransport transport;
    private final AutoCloseable closeTransport;
    private final OutboxRelay relay;
    private final Destination destination;

    OnlyOnceContender(HikariDataSource dataSource, Destination destination, Peers.Servers servers) throws Exception {
        this.dataSource = dataSource;
        this.destination = destination;
        MessagingSchema.apply(dataSource, JdbcDialect.POSTGRESQL);
        if (destination.broker().equals("kafka")) {
            Map<String, Object> producer = new HashMap<>();
            producer.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers.kafkaBootstrap());
            KafkaMessageTransport kafka = KafkaMessageTransport.create(producer);
            transport = kafka;
            closeTransport = kafka;
        } else {
            CachingConnectionFactory factory = new CachingConnectionFactory(servers.rabbitHost(), servers.rabbitPort());
            factory.setUsername("guest");
            factory.setPassword("guest");
            factory.setPublisherConfirmType(ConfirmType.CORRELATED);
            factory.setPublisherReturns(true);
            RabbitTemplate template = new RabbitTemplate(factory);
            template.setMandatory(true);
            transport = new RabbitMessageTransport(template);
            closeTransport = factory::destroy;
        }
        relay = new OutboxRelay(dataSource, JdbcDialect.POSTGRESQL, transport, RelayConfig.ofDefaults());
        relay.start();
    }

    @Override
    public void transaction(OrderPlaced event) throws Exception {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement insert = connection.prepareStatement(INSERT_ORDER)) {
                insert.setString(1, event.orderId());
                insert.setString(2, event.item());
                insert.setInt(3, event.quantity());
                insert.executeUpdate();
            }
            // Kafka: the topic, the type; RabbitMQ: the exchange, the routing key
            outbox.record(connection, new OutboxMessage(event.orderId(), destination.name(), Destination.ROUTING_KEY,
                    event.json(), Map.of()));
            connection.commit();
            connection.setAutoCommit(true);
        }
        relay.wakeUp();
    }

    @Override
    public void close() throws Exception {
        relay.stop();
        closeTransport.close();
    }
}
