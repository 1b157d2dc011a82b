package io.onlyonce.messaging.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.Channel;
import io.onlyonce.messaging.ConsumerStats;
import io.onlyonce.messaging.Delivery;
import io.onlyonce.messaging.InboundMessage;
import io.onlyonce.messaging.MessageConsumer;
import io.onlyonce.messaging.OutboxMessage;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageDeliveryMode;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory.ConfirmType;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;

/**
 * The listener's decisions without a broker: a recording channel, and a template whose broker
 * refuses connections (so a dead-letter attempt shows as a failed publish and a requeue).
 */
class IdempotentRabbitListenerTest {

    final List<String> channelCalls = new CopyOnWriteArrayList<>();
    final Channel channel = (Channel) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Channel.class},
            (proxy, method, args) -> {
                switch (method.getName()) {
                    case "basicAck" -> channelCalls.add("ack " + args[0]);
                    case "basicNack" -> channelCalls.add("nack " + args[0] + " requeue=" + args[2]);
                    default -> throw new UnsupportedOperationException(method.getName());
                }
                return null;
            });
    final CachingConnectionFactory unreachable = new CachingConnectionFactory("127.0.0.1", 1);
    final List<InboundMessage> seen = new ArrayList<>();

    @AfterEach
    void tearDown() {
        unreachable.destroy();
    }

    private RabbitTemplate template() {
        unreachable.setPublisherConfirmType(ConfirmType.CORRELATED);
        unreachable.setPublisherReturns(true);
        unreachable.setConnectionTimeout(1000);
        RabbitTemplate template = new RabbitTemplate(unreachable);
        template.setMandatory(true);
        return template;
    }

    private static MessageConsumer consumer(String name, Function<InboundMessage, Delivery> process) {
        return new MessageConsumer() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Delivery process(InboundMessage message) {
                return process.apply(message);
            }

            @Override
            public ConsumerStats stats() {
                return new ConsumerStats(0, 0, 0, 0, 0);
            }
        };
    }

    private IdempotentRabbitListener listener(Delivery result, int maxDeliveries) {
        return IdempotentRabbitListener.builder(consumer("billing", message -> {
            seen.add(message);
            return result;
        }), template()).deadLetterTo("billing.dlx", "billing").maxDeliveries(maxDeliveries)
                .requeueDelay(Duration.ZERO).deadLetterFailureDelay(Duration.ZERO).build();
    }

    private static Message delivery(String id, long tag, boolean redelivered, Map<String, Object> headers) {
        MessageProperties properties = new MessageProperties();
        properties.setMessageId(id);
        properties.setDeliveryTag(tag);
        properties.setRedelivered(redelivered);
        properties.setReceivedExchange("orders");
        properties.setReceivedRoutingKey("order.paid");
        properties.setConsumerQueue("billing");
        headers.forEach(properties::setHeader);
        return new Message("{\"a\":1}".getBytes(StandardCharsets.UTF_8), properties);
    }

    @Test
    void processedAndDuplicateDeliveriesAreAcked() throws Exception {
        IdempotentRabbitListener processed = listener(Delivery.PROCESSED, 3);
        IdempotentRabbitListener duplicate = listener(Delivery.DUPLICATE, 3);

        processed.onMessage(delivery("m-1", 7, false, Map.of()), channel);
        duplicate.onMessage(delivery("m-1", 8, true, Map.of()), channel);

        assertThat(channelCalls).containsExactly("ack 7", "ack 8");
        assertThat(processed.processed()).isEqualTo(1);
        assertThat(duplicate.duplicates()).isEqualTo(1);
    }

    @Test
    void aRetryIsRequeuedUntilTheLastDeliveryWhichIsDeadLettered() throws Exception {
        IdempotentRabbitListener listener = listener(Delivery.retry("db down"), 3);

        listener.onMessage(delivery("m-1", 1, false, Map.of()), channel);
        listener.onMessage(delivery("m-1", 2, true, Map.of()), channel);
        assertThat(listener.deadLetterFailures()).isZero();
        listener.onMessage(delivery("m-1", 3, true, Map.of()), channel);

        assertThat(listener.requeued()).isEqualTo(2);
        // the third delivery is dead-lettered; the broker is unreachable, so it is requeued, not lost
        assertThat(listener.deadLetterFailures()).isEqualTo(1);
        assertThat(channelCalls).containsExactly("nack 1 requeue=true", "nack 2 requeue=true", "nack 3 requeue=true");
    }

    @Test
    void theBrokersDeliveryCountIsTrustedAcrossListenerInstances() throws Exception {
        IdempotentRabbitListener fresh = listener(Delivery.retry("db down"), 3);

        fresh.onMessage(delivery("m-1", 1, true, Map.of("x-delivery-count", 2L)), channel);

        assertThat(fresh.requeued()).isZero();
        assertThat(fresh.deadLetterFailures()).isEqualTo(1);
    }

    @Test
    void aProcessorThatThrowsCountsAsARetry() throws Exception {
        IdempotentRabbitListener listener = IdempotentRabbitListener.builder(consumer("billing", message -> {
            throw new IllegalStateException("bug");
        }), template()).deadLetterTo("billing.dlx", "billing").requeueDelay(Duration.ZERO).build();

        listener.onMessage(delivery("m-1", 4, false, Map.of()), channel);

        assertThat(channelCalls).containsExactly("nack 4 requeue=true");
        assertThat(listener.requeued()).isEqualTo(1);
    }

    @Test
    void theProcessorSeesIdRouteStringHeadersAndRedelivery() throws Exception {
        IdempotentRabbitListener listener = listener(Delivery.PROCESSED, 3);

        listener.onMessage(delivery("m-1", 1, true, Map.of("X-Request-ID", "r-1", "attempt", 2,
                "spring_returned_message_correlation", "m-1#x", "x-death", List.of(Map.of("count", 1L)),
                "sent", new Date(0), "raw", "é".getBytes(StandardCharsets.UTF_8))), channel);

        InboundMessage message = seen.get(0);
        assertThat(message.id()).isEqualTo("m-1");
        assertThat(message.exchange()).isEqualTo("orders");
        assertThat(message.routingKey()).isEqualTo("order.paid");
        assertThat(message.payload()).isEqualTo("{\"a\":1}");
        assertThat(message.redelivered()).isTrue();
        assertThat(message.headers()).containsOnly(Map.entry("X-Request-ID", "r-1"), Map.entry("attempt", "2"),
                Map.entry("sent", "1970-01-01T00:00:00Z"), Map.entry("raw", "é"));
    }

    @Test
    void theContainerAndTheEndpointUseManualAcknowledgement() {
        IdempotentRabbitListener listener = listener(Delivery.PROCESSED, 3);

        SimpleMessageListenerContainer container = listener.newContainer(unreachable, "billing");
        assertThat(container.getAcknowledgeMode()).isEqualTo(AcknowledgeMode.MANUAL);
        assertThat(container.getQueueNames()).containsExactly("billing");
        assertThat(container.getMessageListener()).isSameAs(listener);
        var endpoint = listener.endpoint("billing-listener", "billing");
        assertThat(endpoint.getAckMode()).isEqualTo(AcknowledgeMode.MANUAL);
        assertThat(endpoint.getMessageListener()).isSameAs(listener);
        assertThat(endpoint.getQueueNames()).containsExactly("billing");
        // what a @RabbitListener container factory (Boot's, with its default AUTO mode) makes of the endpoint
        SimpleRabbitListenerContainerFactory factory = new SimpleRabbitListenerContainerFactory();
        factory.setConnectionFactory(unreachable);
        factory.setAcknowledgeMode(AcknowledgeMode.AUTO);
        SimpleMessageListenerContainer fromFactory = factory.createListenerContainer(endpoint);
        assertThat(fromFactory.getAcknowledgeMode()).isEqualTo(AcknowledgeMode.MANUAL);
        assertThat(fromFactory.getMessageListener()).isSameAs(listener);
        assertThat(fromFactory.getQueueNames()).containsExactly("billing");
    }

    @Test
    void aListenerNeedsADeadLetterDestinationAConfirmingTemplateAndANamedConsumer() {
        MessageConsumer billing = consumer("billing", m -> Delivery.PROCESSED);
        assertThatThrownBy(() -> IdempotentRabbitListener.builder(billing, template()).build())
                .isInstanceOf(NullPointerException.class).hasMessageContaining("dead-letter");
        RabbitTemplate plain = new RabbitTemplate(new CachingConnectionFactory("127.0.0.1", 1));
        assertThatThrownBy(() -> IdempotentRabbitListener.builder(billing, plain).deadLetterTo("dlx", "q").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("correlated");
        assertThatThrownBy(() -> IdempotentRabbitListener.builder(consumer("bad name", m -> Delivery.PROCESSED), plain))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anOutboxMessageTravelsAsPersistentJsonWithItsIdAndHeaders() {
        Message amqp = RabbitMessageTransport.toAmqp(new OutboxMessage("o-1_paid", "orders", "order.paid", "{\"n\":\"é\"}",
                Map.of("X-Request-ID", "r-1")));

        assertThat(amqp.getMessageProperties().getMessageId()).isEqualTo("o-1_paid");
        assertThat(amqp.getMessageProperties().getContentType()).isEqualTo("application/json");
        assertThat(amqp.getMessageProperties().getContentEncoding()).isEqualTo("UTF-8");
        assertThat(amqp.getMessageProperties().getDeliveryMode()).isEqualTo(MessageDeliveryMode.PERSISTENT);
        assertThat(amqp.getMessageProperties().getHeaders()).containsExactly(Map.entry("X-Request-ID", "r-1"));
        assertThat(new String(amqp.getBody(), StandardCharsets.UTF_8)).isEqualTo("{\"n\":\"é\"}");
    }
}
