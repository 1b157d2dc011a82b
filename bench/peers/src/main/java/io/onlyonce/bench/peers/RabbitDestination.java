package io.onlyonce.bench.peers;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.MessageProperties;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A durable direct exchange and a durable classic queue bound to it with {@value #ROUTING_KEY},
 * of their own, deleted at the end; the plain consumer is one {@code basicConsume} with automatic
 * acknowledgement on a connection of its own.
 */
final class RabbitDestination implements Destination {

    private final ConnectionFactory factory;
    private final String exchange;
    private final Connection connection;
    private final Channel admin;

    RabbitDestination(String host, int port, String exchange) throws Exception {
        this.factory = new ConnectionFactory();
        factory.setHost(host);
        factory.setPort(port);
        factory.setUsername("guest");
        factory.setPassword("guest");
        this.exchange = exchange;
        this.connection = factory.newConnection("peers-" + exchange);
        this.admin = connection.createChannel();
        admin.exchangeDeclare(exchange, BuiltinExchangeType.DIRECT, true);
        admin.queueDeclare(exchange, true, false, false, null);
        admin.queueBind(exchange, exchange, ROUTING_KEY);
    }

    @Override
    public String broker() {
        return "rabbit";
    }

    @Override
    public String name() {
        return exchange;
    }

    @Override
    public void consume(Receipts receipts) throws Exception {
        Channel channel = connection.createChannel();
        channel.basicQos(1_000);
        channel.basicConsume(exchange, true, new DefaultConsumer(channel) {
            @Override
            public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
                receipts.receive(OrderPlaced.seqOf(body));
            }
        });
    }

    @Override
    public RawPublisher rawPublisher() throws Exception {
        Connection publishing = factory.newConnection("peers-raw-" + exchange);
        List<Channel> channels = new CopyOnWriteArrayList<>();
        ThreadLocal<Channel> mine = ThreadLocal.withInitial(() -> {
            try {
                Channel channel = publishing.createChannel();
                channel.confirmSelect();
                channels.add(channel);
                return channel;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        return new RawPublisher() {
            @Override
            public void publish(OrderPlaced event) throws Exception {
                AMQP.BasicProperties properties = MessageProperties.PERSISTENT_BASIC.builder().messageId(event.orderId())
                        .contentType("application/json").build();
                mine.get().basicPublish(exchange, ROUTING_KEY, true, properties, event.json().getBytes(StandardCharsets.UTF_8));
            }

            @Override
            public void awaitAcks() throws Exception {
                for (Channel channel : channels) {
                    channel.waitForConfirmsOrDie(30_000);
                }
            }

            @Override
            public void close() throws Exception {
                publishing.close();
            }
        };
    }

    @Override
    public void close() throws Exception {
        try {
            admin.queueDelete(exchange);
            admin.exchangeDelete(exchange);
        } finally {
            connection.close();
        }
    }
}
