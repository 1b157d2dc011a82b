package io.onlyonce.messaging.rabbit;

import java.util.ArrayList;
import java.util.List;
import org.springframework.amqp.core.AmqpAdmin;
import org.springframework.amqp.core.Binding;
import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.Declarable;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.DirectExchange;
import org.springframework.amqp.core.Exchange;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.core.TopicExchange;

/**
 * The broker objects of one consumer:
 *
 * <pre>
 * exchange (topic, durable) --routingKey--&gt; queue (durable; classic or quorum)
 *                                             | x-dead-letter-exchange = deadLetterExchange
 *                                             | x-dead-letter-routing-key = queue
 * deadLetterExchange (direct, durable) --queue--&gt; deadLetterQueue (durable)
 * </pre>
 *
 * <p>{@link IdempotentRabbitListener} publishes its dead letters to {@link #deadLetterExchange()}
 * with the routing key {@link #deadLetterRoutingKey()}; the queue's own dead-letter arguments send
 * what the broker itself dead-letters (a quorum queue's {@linkplain #withDeliveryLimit delivery
 * limit}, a message rejected without requeue) to the same dead-letter queue.
 *
 * <p>Under Spring, expose {@link #declarables()} as a bean and the {@code RabbitAdmin} declares them;
 * without it call {@link #declare(AmqpAdmin)}. Declaring is idempotent, but RabbitMQ refuses
 * ({@code PRECONDITION_FAILED}) to redeclare an existing queue with other arguments: a queue created
 * before without the dead-letter arguments must be deleted or migrated (a policy can set
 * {@code dead-letter-exchange} instead).
 *
 * @param exchange the topic exchange the producer publishes to
 * @param routingKey the binding key of the queue (a topic pattern such as {@code order.paid} or {@code order.*})
 * @param queue the consumer's queue
 * @param deadLetterExchange the direct exchange of dead letters
 * @param deadLetterQueue the queue that keeps them
 * @param quorum whether the queue (and its dead-letter queue) is a quorum queue
 * @param deliveryLimit a quorum queue's {@code x-delivery-limit} (the broker dead-letters a message
 *     delivered more often), or 0 for none
 */
public record RabbitTopology(String exchange, String routingKey, String queue, String deadLetterExchange,
        String deadLetterQueue, boolean quorum, int deliveryLimit) {

    /**
     * @throws IllegalArgumentException when a name is blank or longer than 255 characters, the
     *     dead-letter names equal the main ones, or a delivery limit is set on a classic queue
     */
    public RabbitTopology {
        requireName(exchange, "exchange");
        if (routingKey == null) {
            throw new IllegalArgumentException("routingKey is required");
        }
        requireName(queue, "queue");
        requireName(deadLetterExchange, "deadLetterExchange");
        requireName(deadLetterQueue, "deadLetterQueue");
        if (deliveryLimit < 0) {
            throw new IllegalArgumentException("deliveryLimit must be 0 (none) or positive");
        }
        if (deliveryLimit > 0 && !quorum) {
            throw new IllegalArgumentException("a delivery limit needs a quorum queue");
        }
        if (queue.equals(deadLetterQueue) || exchange.equals(deadLetterExchange)) {
            throw new IllegalArgumentException("the dead-letter exchange and queue must differ from the exchange and queue");
        }
    }

    /**
     * The topology of a consumer of {@code routingKey} on {@code exchange} through {@code queue}, with
     * the dead-letter exchange {@code <queue>.dlx} and dead-letter queue {@code <queue>.dlq}; classic
     * queues.
     */
    public static RabbitTopology forConsumer(String exchange, String routingKey, String queue) {
        requireName(queue, "queue");
        return new RabbitTopology(exchange, routingKey, queue, queue + ".dlx", queue + ".dlq", false, 0);
    }

    /** The same topology with quorum queues (replicated; the broker counts deliveries in {@code x-delivery-count}). */
    public RabbitTopology withQuorumQueues() {
        return new RabbitTopology(exchange, routingKey, queue, deadLetterExchange, deadLetterQueue, true, deliveryLimit);
    }

    /**
     * The same topology on quorum queues with the broker's own delivery limit, a backstop for the
     * listener's (set it above {@link IdempotentRabbitListener.Builder#maxDeliveries}, so that the
     * listener's dead letter, which says why, comes first).
     */
    public RabbitTopology withDeliveryLimit(int limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("a delivery limit is positive");
        }
        return new RabbitTopology(exchange, routingKey, queue, deadLetterExchange, deadLetterQueue, true, limit);
    }

    /** The same topology with other dead-letter exchange and queue names. */
    public RabbitTopology withDeadLetters(String exchangeName, String queueName) {
        return new RabbitTopology(exchange, routingKey, queue, exchangeName, queueName, quorum, deliveryLimit);
    }

    /** The routing key dead letters are published with: the queue's name. */
    public String deadLetterRoutingKey() {
        return queue;
    }

    /**
     * The exchange, the queue, its binding, the dead-letter exchange, the dead-letter queue and its
     * binding, all durable.
     */
    public Declarables declarables() {
        Exchange mainExchange = new TopicExchange(exchange, true, false);
        QueueBuilder queueBuilder = QueueBuilder.durable(queue)
                .deadLetterExchange(deadLetterExchange)
                .deadLetterRoutingKey(deadLetterRoutingKey());
        QueueBuilder dlqBuilder = QueueBuilder.durable(deadLetterQueue);
        if (quorum) {
            queueBuilder.quorum();
            dlqBuilder.quorum();
        }
        if (deliveryLimit > 0) {
            queueBuilder.deliveryLimit(deliveryLimit);
        }
        Queue mainQueue = queueBuilder.build();
        Queue dlq = dlqBuilder.build();
        DirectExchange dlx = new DirectExchange(deadLetterExchange, true, false);
        List<Declarable> all = new ArrayList<>();
        all.add(mainExchange);
        all.add(mainQueue);
        all.add(BindingBuilder.bind(mainQueue).to(mainExchange).with(routingKey).noargs());
        all.add(dlx);
        all.add(dlq);
        all.add(BindingBuilder.bind(dlq).to(dlx).with(deadLetterRoutingKey()));
        return new Declarables(all);
    }

    /** Declares {@link #declarables()} through {@code admin} (exchanges, then queues, then bindings). */
    public void declare(AmqpAdmin admin) {
        Declarables declarables = declarables();
        declarables.getDeclarablesByType(Exchange.class).forEach(admin::declareExchange);
        declarables.getDeclarablesByType(Queue.class).forEach(admin::declareQueue);
        declarables.getDeclarablesByType(Binding.class).forEach(admin::declareBinding);
    }

    private static void requireName(String name, String what) {
        if (name == null || name.isBlank() || name.length() > 255) {
            throw new IllegalArgumentException(what + " is 1 to 255 characters");
        }
    }
}
