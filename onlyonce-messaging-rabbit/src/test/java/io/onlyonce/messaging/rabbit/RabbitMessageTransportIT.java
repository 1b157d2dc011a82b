package io.onlyonce.messaging.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.messaging.UnroutableMessageException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageDeliveryMode;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.core.TopicExchange;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory.ConfirmType;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/** The transport against a real RabbitMQ: confirms, returns, nacks, and the checks at construction. */
class RabbitMessageTransportIT {

    static ScratchVhost vhost;
    static RabbitAdmin admin;
    static RabbitTemplate reader;
    static RabbitMessageTransport transport;

    @BeforeAll
    static void setUp() {
        vhost = ScratchVhost.create("transport");
        admin = vhost.admin();
        reader = new RabbitTemplate(vhost.plainFactory());
        transport = new RabbitMessageTransport(vhost.confirmingTemplate(), Duration.ofSeconds(10));
    }

    @AfterAll
    static void tearDown() {
        if (vhost != null) {
            vhost.close();
        }
    }

    private static RabbitTopology topology(String name) {
        RabbitTopology topology = RabbitTopology.forConsumer(name + ".events", "order.*", name);
        topology.declare(admin);
        return topology;
    }

    private static OutboxMessage message(String id, String exchange, String routingKey) {
        return new OutboxMessage(id, exchange, routingKey, "{\"orderNo\":\"" + id + "\"}",
                Map.of("X-Request-ID", "req-" + id, "tenant", "t1"));
    }

    @Test
    void confirmedPublishIsDeliveredExactlyOnceWithItsIdAndRequestId() throws Exception {
        RabbitTopology topology = topology("confirmed");

        transport.publish(message("2026_paid", topology.exchange(), "order.paid")).get(10, TimeUnit.SECONDS);

        assertThat(admin.getQueueInfo(topology.queue()).getMessageCount()).isEqualTo(1);
        Message delivered = reader.receive(topology.queue(), 5_000);
        assertThat(delivered).isNotNull();
        assertThat(delivered.getMessageProperties().getMessageId()).isEqualTo("2026_paid");
        assertThat(delivered.getMessageProperties().getHeaders())
                .containsEntry("X-Request-ID", "req-2026_paid")
                .containsEntry("tenant", "t1");
        assertThat(delivered.getMessageProperties().getContentType()).isEqualTo("application/json");
        assertThat(delivered.getMessageProperties().getReceivedDeliveryMode()).isEqualTo(MessageDeliveryMode.PERSISTENT);
        assertThat(new String(delivered.getBody(), StandardCharsets.UTF_8)).isEqualTo("{\"orderNo\":\"2026_paid\"}");
        assertThat(reader.receive(topology.queue())).isNull();
        assertThat(admin.getQueueInfo(topology.deadLetterQueue()).getMessageCount()).isZero();
    }

    @Test
    void theSameMessagePublishedTwiceAtOnceIsConfirmedTwice() throws Exception {
        RabbitTopology topology = topology("twice");

        CompletableFuture<Void> first = transport.publish(message("m-1", topology.exchange(), "order.paid"));
        CompletableFuture<Void> second = transport.publish(message("m-1", topology.exchange(), "order.paid"));
        CompletableFuture.allOf(first, second).get(10, TimeUnit.SECONDS);

        assertThat(admin.getQueueInfo(topology.queue()).getMessageCount()).isEqualTo(2);
    }

    @Test
    void anUnroutableMessageFailsAsReturnedAndIsDeliveredNowhere() throws Exception {
        RabbitTopology topology = topology("unroutable");

        CompletableFuture<Void> future = transport.publish(message("u-1", topology.exchange(), "invoice.created"));

        assertThatThrownBy(() -> future.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause().isInstanceOfSatisfying(UnroutableMessageException.class, e -> assertThat(e.getMessage())
                        .contains("u-1").contains(topology.exchange()).contains("invoice.created").contains("NO_ROUTE"));
        assertThat(admin.getQueueInfo(topology.queue()).getMessageCount()).isZero();
        assertThat(admin.getQueueInfo(topology.deadLetterQueue()).getMessageCount()).isZero();
    }

    @Test
    void aMessageToAMissingExchangeFails() {
        CompletableFuture<Void> future = transport.publish(message("x-1", "no-such-exchange", "order.paid"));

        assertThatThrownBy(() -> future.get(10, TimeUnit.SECONDS))
                .cause().isInstanceOfSatisfying(RabbitPublishException.class,
                        e -> assertThat(e.reason()).isEqualTo(RabbitPublishException.Reason.NACKED));
    }

    @Test
    void aMessageTheBrokerRefusesFailsAsNacked() throws Exception {
        admin.declareExchange(new TopicExchange("full.events", true, false));
        admin.declareQueue(QueueBuilder.durable("full").maxLength(1).overflow(QueueBuilder.Overflow.rejectPublish).build());
        admin.declareBinding(new org.springframework.amqp.core.Binding("full",
                org.springframework.amqp.core.Binding.DestinationType.QUEUE, "full.events", "#", null));

        transport.publish(message("f-1", "full.events", "order.paid")).get(10, TimeUnit.SECONDS);
        CompletableFuture<Void> refused = transport.publish(message("f-2", "full.events", "order.paid"));

        assertThatThrownBy(() -> refused.get(10, TimeUnit.SECONDS))
                .cause().isInstanceOfSatisfying(RabbitPublishException.class, e -> {
                    assertThat(e.reason()).isEqualTo(RabbitPublishException.Reason.NACKED);
                    assertThat(e.messageId()).isEqualTo("f-2");
                });
        assertThat(admin.getQueueInfo("full").getMessageCount()).isEqualTo(1);
        assertThat(reader.receive("full", 5_000).getMessageProperties().getMessageId()).isEqualTo("f-1");
    }

    @Test
    void constructionFailsFastWithoutCorrelatedConfirmsReturnsOrMandatory() {
        CachingConnectionFactory noConfirms = vhost.plainFactory();
        noConfirms.setPublisherReturns(true);
        RabbitTemplate withoutConfirms = new RabbitTemplate(noConfirms);
        withoutConfirms.setMandatory(true);
        assertThatThrownBy(() -> new RabbitMessageTransport(withoutConfirms))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("publisher-confirm-type=correlated");

        CachingConnectionFactory simple = vhost.plainFactory();
        simple.setPublisherConfirmType(ConfirmType.SIMPLE);
        simple.setPublisherReturns(true);
        RabbitTemplate withSimpleConfirms = new RabbitTemplate(simple);
        withSimpleConfirms.setMandatory(true);
        assertThatThrownBy(() -> new RabbitMessageTransport(withSimpleConfirms))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SIMPLE confirms are not correlated");

        CachingConnectionFactory noReturns = vhost.plainFactory();
        noReturns.setPublisherConfirmType(ConfirmType.CORRELATED);
        RabbitTemplate withoutReturns = new RabbitTemplate(noReturns);
        withoutReturns.setMandatory(true);
        assertThatThrownBy(() -> new RabbitMessageTransport(withoutReturns))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("publisher-returns=true");

        RabbitTemplate notMandatory = new RabbitTemplate(vhost.confirmingFactory());
        assertThatThrownBy(() -> new RabbitMessageTransport(notMandatory))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("template.mandatory=true");

        assertThatThrownBy(() -> new RabbitMessageTransport(vhost.confirmingTemplate(), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
