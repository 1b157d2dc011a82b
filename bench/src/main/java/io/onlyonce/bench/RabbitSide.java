package io.onlyonce.bench;

import com.rabbitmq.client.Channel;
import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.messaging.ConsumerConfig;
import io.onlyonce.messaging.IdempotentConsumer;
import io.onlyonce.messaging.MessageHandler;
import io.onlyonce.messaging.MessageTransport;
import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.messaging.rabbit.IdempotentRabbitListener;
import io.onlyonce.messaging.rabbit.RabbitMessageTransport;
import io.onlyonce.messaging.rabbit.RabbitTopology;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import javax.sql.DataSource;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageDeliveryMode;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory.ConfirmType;
import org.springframework.amqp.rabbit.connection.CorrelationData;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.api.ChannelAwareMessageListener;

/**
 * RabbitMQ for {@link MessagingBench}: a scratch virtual host (created and deleted with
 * {@code rabbitmqctl}), classic durable queues, persistent messages, correlated confirms, returns
 * and mandatory publishing. The raw publish sends each batch on one channel
 * ({@code RabbitTemplate.invoke}) with a correlation per message and waits for the batch's confirms
 * ({@code waitForConfirms}), then checks that each was acked and not returned. The consumers run in a
 * {@link SimpleMessageListenerContainer} with manual acks.
 */
final class RabbitSide implements BrokerSide {

    static final String ROUTING_KEY = "order.created";

    private final String rabbitmqctl;
    private final String vhost;
    private final CachingConnectionFactory confirming;
    private final CachingConnectionFactory consuming;
    private final RabbitTemplate template;
    private final RabbitMessageTransport transport;
    private final RabbitAdmin admin;
    private final RabbitTopology produced;
    private final RabbitTopology plainQueue;
    private final RabbitTopology inboxQueue;
    /** Channels the publishing connection factory opened. */
    private final LongAdder channelsOpened = new LongAdder();
    private long sequence;

    private RabbitSide(String rabbitmqctl, String vhost, CachingConnectionFactory confirming,
            CachingConnectionFactory consuming) {
        this.rabbitmqctl = rabbitmqctl;
        this.vhost = vhost;
        this.confirming = confirming;
        this.consuming = consuming;
        confirming.addChannelListener((channel, transactional) -> channelsOpened.increment());
        this.template = new RabbitTemplate(confirming);
        template.setMandatory(true);
        this.transport = new RabbitMessageTransport(template);
        this.admin = new RabbitAdmin(consuming);
        this.produced = RabbitTopology.forConsumer("bench.orders", ROUTING_KEY, "bench.orders.sink");
        this.plainQueue = RabbitTopology.forConsumer("bench.plain", ROUTING_KEY, "bench.plain");
        this.inboxQueue = RabbitTopology.forConsumer("bench.inbox", ROUTING_KEY, "bench.inbox");
        produced.declare(admin);
        plainQueue.declare(admin);
        inboxQueue.declare(admin);
    }

    /** Server: {@code ONLYONCE_RABBIT_HOST}:{@code ONLYONCE_RABBIT_PORT} (127.0.0.1:5672), guest/guest. */
    static RabbitSide start() throws Exception {
        String host = Harness.env("ONLYONCE_RABBIT_HOST", "127.0.0.1");
        int port = Integer.parseInt(Harness.env("ONLYONCE_RABBIT_PORT", "5672"));
        String rabbitmqctl = Harness.env("ONLYONCE_RABBITMQCTL", "rabbitmqctl");
        String vhost = "onlyonce-bench-msg-" + UUID.randomUUID().toString().substring(0, 8);
        Harness.exec(List.of(rabbitmqctl, "add_vhost", vhost));
        Harness.exec(List.of(rabbitmqctl, "set_permissions", "-p", vhost, "guest", ".*", ".*", ".*"));
        CachingConnectionFactory confirming = factory(host, port, vhost);
        confirming.setPublisherConfirmType(ConfirmType.CORRELATED);
        confirming.setPublisherReturns(true);
        CachingConnectionFactory consuming = factory(host, port, vhost);
        try {
            return new RabbitSide(rabbitmqctl, vhost, confirming, consuming);
        } catch (RuntimeException e) {
            confirming.destroy();
            consuming.destroy();
            Harness.exec(List.of(rabbitmqctl, "delete_vhost", vhost));
            throw e;
        }
    }

    @Override
    public String name() {
        return "rabbit";
    }

    @Override
    public String rawDescription() {
        return "RabbitTemplate.invoke: a batch on one channel, waitForConfirms, each acked and not returned";
    }

    @Override
    public String plainDescription() {
        return "listener: autocommit insert, then basicAck (at-least-once)";
    }

    @Override
    public String idempotentDescription() {
        return "IdempotentRabbitListener + IdempotentConsumer (JDBC inbox)";
    }

    @Override
    public MessageTransport transport() {
        return transport;
    }

    @Override
    public OutboxMessage message(String id) {
        return message(produced.exchange(), id);
    }

    @Override
    public OutboxMessage delivery(String id, boolean idempotent) {
        return message((idempotent ? inboxQueue : plainQueue).exchange(), id);
    }

    private static OutboxMessage message(String exchange, String id) {
        return new OutboxMessage(id, exchange, ROUTING_KEY, MessagingBench.payload(id), Map.of("X-Request-ID", "req-" + id));
    }

    @Override
    public void rawPublish(List<OutboxMessage> messages, int batch) throws Exception {
        for (int from = 0; from < messages.size(); from += batch) {
            List<OutboxMessage> slice = messages.subList(from, Math.min(messages.size(), from + batch));
            List<CorrelationData> correlations = new ArrayList<>(slice.size());
            template.invoke(operations -> {
                for (OutboxMessage message : slice) {
                    CorrelationData correlation = new CorrelationData(message.id() + "#" + (++sequence));
                    operations.send(message.exchange(), message.routingKey(), amqp(message), correlation);
                    correlations.add(correlation);
                }
                operations.waitForConfirms(MessagingBench.PHASE_TIMEOUT.toMillis());
                return null;
            });
            for (CorrelationData correlation : correlations) {
                CorrelationData.Confirm confirm = correlation.getFuture().get(MessagingBench.PHASE_TIMEOUT.toMillis(),
                        TimeUnit.MILLISECONDS);
                if (!confirm.ack() || correlation.getReturned() != null) {
                    throw new IllegalStateException("publish of " + correlation.getId() + " not confirmed: " + confirm
                            + ", returned " + correlation.getReturned());
                }
            }
        }
    }

    /** The AMQP message {@link RabbitMessageTransport} sends: message id, JSON, persistent, headers. */
    private static Message amqp(OutboxMessage message) {
        MessageProperties properties = new MessageProperties();
        properties.setMessageId(message.id());
        properties.setContentType(MessageProperties.CONTENT_TYPE_JSON);
        properties.setContentEncoding(StandardCharsets.UTF_8.name());
        properties.setDeliveryMode(MessageDeliveryMode.PERSISTENT);
        message.headers().forEach(properties::setHeader);
        return new Message(message.payload().getBytes(StandardCharsets.UTF_8), properties);
    }

    @Override
    public void expectPublished(long count) throws Exception {
        expectDepth(produced.queue(), count);
        admin.purgeQueue(produced.queue(), false);
    }

    @Override
    public long counter() {
        return channelsOpened.sum();
    }

    @Override
    public String counterName() {
        return "channels opened";
    }

    @Override
    public void preload(List<OutboxMessage> stream, boolean idempotent) throws Exception {
        rawPublish(stream, 100);
        expectDepth((idempotent ? inboxQueue : plainQueue).queue(), stream.size());
    }

    @Override
    public Drain drain(boolean idempotent, int deliveries, Settings settings) throws Exception {
        RabbitTopology topology = idempotent ? inboxQueue : plainQueue;
        SimpleMessageListenerContainer container;
        LongSupplier settled;
        IdempotentRabbitListener inbox = null;
        PlainListener plain = null;
        if (idempotent) {
            IdempotentConsumer consumer = new IdempotentConsumer("bench-stock", settings.dataSource(),
                    JdbcDialect.POSTGRESQL, MessagingBench.EFFECT, ConsumerConfig.ofDefaults());
            IdempotentRabbitListener listener = IdempotentRabbitListener.builder(consumer, template).topology(topology).build();
            inbox = listener;
            container = listener.newContainer(consuming, topology.queue());
            settled = () -> listener.processed() + listener.duplicates() + listener.deadLettered();
        } else {
            PlainListener listener = new PlainListener(settings.dataSource());
            plain = listener;
            container = new SimpleMessageListenerContainer(consuming);
            container.setQueueNames(topology.queue());
            container.setAcknowledgeMode(AcknowledgeMode.MANUAL);
            container.setMessageListener(listener);
            settled = () -> listener.acked.sum() + listener.failed.sum();
        }
        container.setConcurrentConsumers(settings.consumers());
        container.setPrefetchCount(settings.prefetch());
        container.setReceiveTimeout(100); // idle consumers notice a stop sooner (default 1 s); busy ones never wait
        double seconds;
        try {
            long start = System.nanoTime();
            container.start();
            long deadline = start + MessagingBench.PHASE_TIMEOUT.toNanos();
            while (settled.getAsLong() < deliveries) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(name() + (idempotent ? " idempotent" : " plain") + " consumer: "
                            + settled.getAsLong() + " of " + deliveries + " deliveries settled in " + MessagingBench.PHASE_TIMEOUT);
                }
                Thread.sleep(1);
            }
            seconds = (System.nanoTime() - start) / 1e9;
        } finally {
            container.stop();
        }
        expectDepth(topology.queue(), 0);
        return idempotent ? new Drain(seconds, inbox.processed(), inbox.duplicates(), inbox.deadLettered())
                : new Drain(seconds, -1, -1, plain.failed.sum());
    }

    /** Acks each delivery after one autocommit insert: at-least-once, a duplicate takes effect again. */
    private static final class PlainListener implements ChannelAwareMessageListener {
        final LongAdder acked = new LongAdder();
        final LongAdder failed = new LongAdder();
        private final DataSource dataSource;

        PlainListener(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        @Override
        public void onMessage(Message message, Channel channel) throws Exception {
            long tag = message.getMessageProperties().getDeliveryTag();
            try (Connection connection = dataSource.getConnection();
                    PreparedStatement insert = connection.prepareStatement(MessagingBench.INSERT_EFFECT)) {
                insert.setString(1, message.getMessageProperties().getMessageId());
                insert.setString(2, new String(message.getBody(), StandardCharsets.UTF_8));
                insert.executeUpdate();
            } catch (SQLException e) {
                failed.increment();
                channel.basicNack(tag, false, false);
                return;
            }
            channel.basicAck(tag, false);
            acked.increment();
        }
    }

    private void expectDepth(String queue, long expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long depth;
        while ((depth = depth(queue)) != expected) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("queue " + queue + " holds " + depth + " messages, expected " + expected);
            }
            Thread.sleep(20);
        }
    }

    private long depth(String queue) {
        var info = admin.getQueueInfo(queue);
        return info == null ? -1 : info.getMessageCount();
    }

    private static CachingConnectionFactory factory(String host, int port, String vhost) {
        CachingConnectionFactory factory = new CachingConnectionFactory(host, port);
        factory.setUsername("guest");
        factory.setPassword("guest");
        factory.setVirtualHost(vhost);
        factory.setConnectionTimeout(5_000);
        return factory;
    }

    @Override
    public void close() throws Exception {
        confirming.destroy();
        consuming.destroy();
        Harness.exec(List.of(rabbitmqctl, "delete_vhost", vhost));
    }
}
