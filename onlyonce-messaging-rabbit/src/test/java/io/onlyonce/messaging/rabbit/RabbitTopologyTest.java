package io.onlyonce.messaging.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Binding;
import org.springframework.amqp.core.Exchange;
import org.springframework.amqp.core.ExchangeTypes;
import org.springframework.amqp.core.Queue;

class RabbitTopologyTest {

    @Test
    void aConsumerGetsATopicExchangeADurableQueueAndItsDeadLetters() {
        RabbitTopology topology = RabbitTopology.forConsumer("orders", "order.paid", "stock.order-paid");

        assertThat(topology.deadLetterExchange()).isEqualTo("stock.order-paid.dlx");
        assertThat(topology.deadLetterQueue()).isEqualTo("stock.order-paid.dlq");
        assertThat(topology.deadLetterRoutingKey()).isEqualTo("stock.order-paid");
        List<Exchange> exchanges = topology.declarables().getDeclarablesByType(Exchange.class);
        assertThat(exchanges).extracting(Exchange::getName, Exchange::getType, Exchange::isDurable).containsExactly(
                org.assertj.core.groups.Tuple.tuple("orders", ExchangeTypes.TOPIC, true),
                org.assertj.core.groups.Tuple.tuple("stock.order-paid.dlx", ExchangeTypes.DIRECT, true));
        List<Queue> queues = topology.declarables().getDeclarablesByType(Queue.class);
        assertThat(queues).extracting(Queue::getName).containsExactly("stock.order-paid", "stock.order-paid.dlq");
        assertThat(queues).allMatch(Queue::isDurable);
        assertThat(queues.get(0).getArguments())
                .containsEntry("x-dead-letter-exchange", "stock.order-paid.dlx")
                .containsEntry("x-dead-letter-routing-key", "stock.order-paid")
                .doesNotContainKey("x-queue-type");
        List<Binding> bindings = topology.declarables().getDeclarablesByType(Binding.class);
        assertThat(bindings).extracting(Binding::getExchange, Binding::getRoutingKey, Binding::getDestination).containsExactly(
                org.assertj.core.groups.Tuple.tuple("orders", "order.paid", "stock.order-paid"),
                org.assertj.core.groups.Tuple.tuple("stock.order-paid.dlx", "stock.order-paid", "stock.order-paid.dlq"));
    }

    @Test
    void quorumQueuesCarryTheBrokersDeliveryLimit() {
        RabbitTopology topology = RabbitTopology.forConsumer("orders", "order.*", "stock").withDeliveryLimit(10);

        List<Queue> queues = topology.declarables().getDeclarablesByType(Queue.class);
        assertThat(queues.get(0).getArguments()).containsEntry("x-queue-type", "quorum").containsEntry("x-delivery-limit", 10);
        assertThat(queues.get(1).getArguments()).containsEntry("x-queue-type", "quorum").doesNotContainKey("x-delivery-limit");
        assertThat(RabbitTopology.forConsumer("orders", "order.*", "stock").withQuorumQueues().deliveryLimit()).isZero();
    }

    @Test
    void invalidTopologiesAreRefused() {
        assertThatThrownBy(() -> RabbitTopology.forConsumer("", "k", "q")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RabbitTopology.forConsumer("e", "k", " ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RabbitTopology("e", "k", "q", "dlx", "q", false, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RabbitTopology("e", "k", "q", "dlx", "dlq", false, 5))
                .hasMessageContaining("quorum");
        assertThatThrownBy(() -> RabbitTopology.forConsumer("e", "k", "q").withDeliveryLimit(0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
