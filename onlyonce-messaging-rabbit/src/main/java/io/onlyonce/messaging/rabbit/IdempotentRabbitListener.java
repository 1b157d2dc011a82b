package io.onlyonce.messaging.rabbit;

import com.rabbitmq.client.Channel;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.messaging.Delivery;
import io.onlyonce.messaging.DeliveryPolicy;
import io.onlyonce.messaging.InboundMessage;
import io.onlyonce.messaging.MessageConsumer;
import java.time.Clock;
import java.time.Duration;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageDeliveryMode;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerEndpoint;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.api.ChannelAwareMessageListener;

/**
 * A manual-acknowledgement listener that puts a {@link MessageConsumer} (the
 * {@link io.onlyonce.messaging.IdempotentConsumer} with its inbox) on a RabbitMQ queue: each delivery
 * becomes an {@link InboundMessage}, and the {@link Delivery} the consumer answers decides the
 * acknowledgement:
 *
 * <table>
 *   <caption>acknowledgement per outcome</caption>
 *   <tr><th>outcome</th><th>broker</th></tr>
 *   <tr><td>PROCESSED, DUPLICATE</td><td>{@code basicAck} (the consumer has committed when it returns)</td></tr>
 *   <tr><td>RETRY</td><td>{@code basicNack} with requeue, after {@linkplain Builder#requeueDelay a pause};
 *       from the {@linkplain Builder#maxDeliveries max-deliveries}-th delivery on: dead-lettered</td></tr>
 *   <tr><td>DEAD_LETTER(reason)</td><td>published to the dead-letter exchange, and acked once the
 *       broker confirmed that publish</td></tr>
 *   <tr><td>no {@code message-id}, a malformed one (not 1 to 255 visible ASCII), a body that is not
 *       UTF-8</td><td>dead-lettered without calling the consumer</td></tr>
 * </table>
 *
 * <p>A dead letter keeps the body, the message id, the content type and every header, and gets the
 * {@link DeadLetterHeaders}. The original is acked only after the dead-letter publish was confirmed
 * (and routed: the template is mandatory); when that publish fails, the original is requeued after
 * {@link Builder#deadLetterFailureDelay}, so a message is never lost, and a crash between the
 * confirm and the ack leaves the dead letter and a redelivery (the dead-letter queue can then hold a
 * message twice; replaying both is harmless, the inbox drops the second).
 *
 * <p>Deliveries are counted per message id by the broker where it can: a quorum queue's
 * {@code x-delivery-count}; a classic queue only flags a redelivery, so this listener also counts
 * the requeues it made itself, in memory (per listener instance, forgotten on restart: each
 * instance bounds the requeues it makes). Choose quorum queues to have a bound that holds across
 * instances and restarts, and {@link RabbitTopology#withDeliveryLimit} as the broker's backstop.
 *
 * <p>Use it in a {@link SimpleMessageListenerContainer} ({@link #newContainer}) or register
 * {@link #endpoint} with a {@code RabbitListenerConfigurer}; from a {@code @RabbitListener(ackMode =
 * "MANUAL")} method taking {@code (Message, Channel)}, call {@link #onMessage(Message, Channel)}. The
 * acknowledge mode must be {@code MANUAL}. Publish dead letters through a template on a connection
 * factory with correlated confirms and returns (the same as the {@link RabbitMessageTransport}'s;
 * {@code RabbitTemplate.setUsePublisherConnection(true)} keeps publishing off the consumers'
 * connection).
 */
public final class IdempotentRabbitListener implements ChannelAwareMessageListener {

    private static final System.Logger LOG = System.getLogger(IdempotentRabbitListener.class.getName());

    /** The header in which quorum queues count earlier deliveries. */
    static final String DELIVERY_COUNT_HEADER = "x-delivery-count";

    /** Spring AMQP's own correlation headers, which are not the message's. */
    private static final String SPRING_HEADER_PREFIX = "spring_";

    private static final int MAX_REASON_LENGTH = 1000;

    /** Bound of the in-memory requeue counts; beyond it they are forgotten (the bound then restarts). */
    private static final int MAX_TRACKED = 100_000;

    private final String consumer;
    private final MessageConsumer messageConsumer;
    private final ConfirmedPublisher deadLetterPublisher;
    private final String deadLetterExchange;
    private final String deadLetterRoutingKey;
    private final DeliveryPolicy policy;
    private final Duration requeueDelay;
    private final Duration deadLetterFailureDelay;
    private final Clock clock;
    private final Consumer<String> onOwnDeadLetter;

    private final ConcurrentHashMap<String, Integer> requeues = new ConcurrentHashMap<>();
    private final LongAdder processed = new LongAdder();
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder requeued = new LongAdder();
    private final LongAdder deadLettered = new LongAdder();
    private final LongAdder deadLetterFailures = new LongAdder();

    private IdempotentRabbitListener(Builder builder) {
        this.messageConsumer = builder.consumer;
        this.consumer = builder.consumer.name();
        this.deadLetterPublisher = new ConfirmedPublisher(builder.template, builder.deadLetterConfirmTimeout);
        this.deadLetterExchange = Objects.requireNonNull(builder.deadLetterExchange,
                "a dead-letter exchange is required: deadLetterTo(exchange, routingKey) or topology(...)");
        this.deadLetterRoutingKey = Objects.requireNonNull(builder.deadLetterRoutingKey, "deadLetterRoutingKey");
        this.policy = new DeliveryPolicy(builder.maxDeliveries);
        this.requeueDelay = builder.requeueDelay;
        this.deadLetterFailureDelay = builder.deadLetterFailureDelay;
        this.clock = builder.clock;
        this.onOwnDeadLetter = builder.onOwnDeadLetter;
    }

    /**
     * A builder of the listener that hands deliveries to {@code consumer} (its name is written into
     * dead letters) and publishes dead letters on {@code template} (correlated confirms, returns,
     * mandatory: checked when built).
     */
    public static Builder builder(MessageConsumer consumer, RabbitTemplate template) {
        return new Builder(consumer, template);
    }

    @Override
    public void onMessage(Message message, @Nullable Channel channel) throws Exception {
        if (channel == null) {
            throw new IllegalStateException("the IdempotentRabbitListener needs the channel: a container with "
                    + "AcknowledgeMode.MANUAL, or a @RabbitListener method taking (Message, Channel)");
        }
        MessageProperties properties = message.getMessageProperties();
        long tag = properties.getDeliveryTag();
        String id = properties.getMessageId();
        String payload = DeliveryPolicy.utf8(message.getBody());
        String unusable = DeliveryPolicy.unusable(id, payload);
        if (unusable != null) {
            deadLetter(message, channel, unusable, 1, true);
            return;
        }
        InboundMessage inbound = new InboundMessage(id, nonNull(properties.getReceivedExchange()),
                nonNull(properties.getReceivedRoutingKey()), Objects.requireNonNull(payload), stringHeaders(properties),
                Boolean.TRUE.equals(properties.getRedelivered()));
        int delivery = deliveryNumber(id, properties);
        DeliveryPolicy.Decision decision = policy.decide(messageConsumer, inbound, delivery);
        if (decision instanceof DeliveryPolicy.Decision.Acknowledge acknowledge) {
            requeues.remove(id);
            channel.basicAck(tag, false);
            (acknowledge.duplicate() ? duplicates : processed).increment();
        } else if (decision instanceof DeliveryPolicy.Decision.Redeliver) {
            if (requeues.size() >= MAX_TRACKED) {
                requeues.clear();
            }
            requeues.put(id, delivery);
            pause(requeueDelay);
            channel.basicNack(tag, false, true);
            requeued.increment();
        } else {
            DeliveryPolicy.Decision.DeadLetter dead = (DeliveryPolicy.Decision.DeadLetter) decision;
            requeues.remove(id);
            deadLetter(message, channel, dead.reason(), delivery, dead.own());
        }
    }

    /** The number of this delivery of message {@code id}: 1 for the first. */
    private int deliveryNumber(String id, MessageProperties properties) {
        int delivery = 1;
        Integer before = requeues.get(id);
        if (before != null) {
            delivery = before + 1;
        }
        Object brokerCount = properties.getHeaders().get(DELIVERY_COUNT_HEADER);
        if (brokerCount instanceof Number count) {
            delivery = Math.max(delivery, count.intValue() + 1);
        }
        if (Boolean.TRUE.equals(properties.getRedelivered())) {
            delivery = Math.max(delivery, 2);
        }
        return delivery;
    }

    /**
     * Publishes the dead letter, then acks the original.
     *
     * @param own whether this listener decided it (the consumer did not answer DEAD_LETTER)
     */
    private void deadLetter(Message message, Channel channel, String reason, int delivery, boolean own) throws Exception {
        MessageProperties properties = message.getMessageProperties();
        long tag = properties.getDeliveryTag();
        String id = properties.getMessageId();
        Message deadLetter = deadLetterOf(message, reason, delivery);
        try {
            deadLetterPublisher.publishAndWait(deadLetterExchange, deadLetterRoutingKey, deadLetter, id);
        } catch (RuntimeException e) {
            deadLetterFailures.increment();
            LOG.log(System.Logger.Level.ERROR, "consumer " + consumer + ": could not dead-letter message " + id + " ("
                    + reason + "); requeued: " + e.getMessage());
            pause(deadLetterFailureDelay);
            channel.basicNack(tag, false, true);
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            channel.basicNack(tag, false, true);
            return;
        }
        channel.basicAck(tag, false);
        deadLettered.increment();
        if (own) {
            try {
                onOwnDeadLetter.accept(reason);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "consumer " + consumer + ": a dead-letter listener failed: " + e);
            }
        }
        LOG.log(System.Logger.Level.WARNING, "consumer " + consumer + ": dead-lettered message " + id + " to "
                + deadLetterExchange + ": " + reason);
    }

    private Message deadLetterOf(Message original, String reason, int delivery) {
        MessageProperties source = original.getMessageProperties();
        MessageProperties target = new MessageProperties();
        target.setMessageId(source.getMessageId());
        target.setContentType(source.getContentType());
        target.setContentEncoding(source.getContentEncoding());
        target.setDeliveryMode(MessageDeliveryMode.PERSISTENT);
        target.setCorrelationId(source.getCorrelationId());
        target.setType(source.getType());
        target.setAppId(source.getAppId());
        target.setTimestamp(source.getTimestamp());
        source.getHeaders().forEach((name, value) -> {
            if (value != null && !name.startsWith(SPRING_HEADER_PREFIX) && !name.startsWith(DeadLetterHeaders.PREFIX)
                    && !name.equals(DELIVERY_COUNT_HEADER)) {
                target.setHeader(name, value);
            }
        });
        // A replayed dead letter arrives through the default exchange and still names where it was first published.
        Object firstExchange = source.getHeaders().get(DeadLetterHeaders.ORIGINAL_EXCHANGE);
        Object firstRoutingKey = source.getHeaders().get(DeadLetterHeaders.ORIGINAL_ROUTING_KEY);
        boolean replayed = firstExchange != null && firstRoutingKey != null;
        target.setHeader(DeadLetterHeaders.REASON, reason.length() > MAX_REASON_LENGTH
                ? reason.substring(0, MAX_REASON_LENGTH) : reason);
        target.setHeader(DeadLetterHeaders.CONSUMER, consumer);
        target.setHeader(DeadLetterHeaders.ORIGINAL_EXCHANGE,
                replayed ? firstExchange.toString() : nonNull(source.getReceivedExchange()));
        target.setHeader(DeadLetterHeaders.ORIGINAL_ROUTING_KEY,
                replayed ? firstRoutingKey.toString() : nonNull(source.getReceivedRoutingKey()));
        target.setHeader(DeadLetterHeaders.ORIGINAL_QUEUE, nonNull(source.getConsumerQueue()));
        target.setHeader(DeadLetterHeaders.DELIVERIES, delivery);
        target.setHeader(DeadLetterHeaders.DEAD_AT, clock.instant().toString());
        return new Message(original.getBody(), target);
    }

    /** The headers of a delivery as strings; structured ones ({@code x-death}) and Spring's own are left out. */
    static Map<String, String> stringHeaders(MessageProperties properties) {
        Map<String, String> headers = new LinkedHashMap<>();
        properties.getHeaders().forEach((name, value) -> {
            if (value == null || name.startsWith(SPRING_HEADER_PREFIX)) {
                return;
            }
            if (value instanceof byte[] bytes) {
                String text = DeliveryPolicy.utf8(bytes);
                if (text != null) {
                    headers.put(name, text);
                }
            } else if (value instanceof Date date) {
                headers.put(name, date.toInstant().toString());
            } else if (value instanceof CharSequence || value instanceof Number || value instanceof Boolean
                    || value instanceof com.rabbitmq.client.LongString) {
                headers.put(name, value.toString());
            }
        });
        return headers;
    }

    private static String nonNull(@Nullable String value) {
        return value == null ? "" : value;
    }

    private static void pause(Duration delay) {
        if (delay.isZero()) {
            return;
        }
        try {
            Thread.sleep(delay.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A container (not started) that consumes {@code queues} through this listener, with manual
     * acknowledgement. Set its concurrency, prefetch and shutdown timeout as needed, then start it.
     */
    public SimpleMessageListenerContainer newContainer(ConnectionFactory connectionFactory, String... queues) {
        SimpleMessageListenerContainer container = new SimpleMessageListenerContainer(connectionFactory);
        container.setQueueNames(queues);
        container.setAcknowledgeMode(AcknowledgeMode.MANUAL);
        container.setMessageListener(this);
        return container;
    }

    /**
     * A {@code @RabbitListener}-style endpoint of this listener on {@code queues}, with manual
     * acknowledgement, to register in a {@code RabbitListenerConfigurer}
     * ({@code registrar.registerEndpoint(listener.endpoint("orders", "orders.paid"))}); the registrar's
     * container factory (Boot's) creates its container.
     */
    public SimpleRabbitListenerEndpoint endpoint(String id, String... queues) {
        SimpleRabbitListenerEndpoint endpoint = new SimpleRabbitListenerEndpoint();
        endpoint.setId(id);
        endpoint.setQueueNames(queues);
        endpoint.setAckMode(AcknowledgeMode.MANUAL);
        endpoint.setMessageListener(this);
        return endpoint;
    }

    /** The consumer name written into dead letters. */
    public String consumer() {
        return consumer;
    }

    /** Deliveries processed and acked. */
    public long processed() {
        return processed.sum();
    }

    /** Duplicate deliveries acked and dropped. */
    public long duplicates() {
        return duplicates.sum();
    }

    /** Deliveries requeued for a retry. */
    public long requeued() {
        return requeued.sum();
    }

    /** Deliveries dead-lettered (confirmed) and acked. */
    public long deadLettered() {
        return deadLettered.sum();
    }

    /** Dead-letter publishes that failed (the delivery was requeued instead). */
    public long deadLetterFailures() {
        return deadLetterFailures.sum();
    }

    /** Builds an {@link IdempotentRabbitListener}. */
    public static final class Builder {

        private final MessageConsumer consumer;
        private final RabbitTemplate template;
        private @Nullable String deadLetterExchange;
        private @Nullable String deadLetterRoutingKey;
        private int maxDeliveries = 10;
        private Duration requeueDelay = Duration.ofSeconds(1);
        private Duration deadLetterConfirmTimeout = Duration.ofSeconds(10);
        private Duration deadLetterFailureDelay = Duration.ofSeconds(5);
        private Clock clock = Clock.systemUTC();
        private Consumer<String> onOwnDeadLetter = reason -> { };

        private Builder(MessageConsumer consumer, RabbitTemplate template) {
            this.consumer = Objects.requireNonNull(consumer, "consumer");
            if (!IdempotencyKey.isValidName(consumer.name())) {
                throw new IllegalArgumentException("a consumer name is 1 to 255 visible ASCII characters");
            }
            this.template = Objects.requireNonNull(template, "template");
        }

        /** Dead letters go to {@code topology}'s dead-letter exchange with its dead-letter routing key. */
        public Builder topology(RabbitTopology topology) {
            return deadLetterTo(topology.deadLetterExchange(), topology.deadLetterRoutingKey());
        }

        /** Dead letters go to {@code exchange} with {@code routingKey} (required, or {@link #topology}). */
        public Builder deadLetterTo(String exchange, String routingKey) {
            this.deadLetterExchange = Objects.requireNonNull(exchange, "exchange");
            this.deadLetterRoutingKey = Objects.requireNonNull(routingKey, "routingKey");
            return this;
        }

        /**
         * The delivery on which a message that is still to be retried is dead-lettered instead;
         * default 10. 1 dead-letters at the first RETRY. With the {@link #requeueDelay}, it decides how
         * long a database outage may last before the messages it hits are dead-lettered (replay them
         * with {@link RabbitDeadLetters} afterwards).
         */
        public Builder maxDeliveries(int maxDeliveries) {
            if (maxDeliveries < 1) {
                throw new IllegalArgumentException("maxDeliveries is at least 1");
            }
            this.maxDeliveries = maxDeliveries;
            return this;
        }

        /** How long the consumer thread waits before requeueing a RETRY (default 1 s; zero: at once). */
        public Builder requeueDelay(Duration delay) {
            this.requeueDelay = nonNegative(delay, "requeueDelay");
            return this;
        }

        /** How long to wait for the confirm of a dead-letter publish (default 10 s). */
        public Builder deadLetterConfirmTimeout(Duration timeout) {
            this.deadLetterConfirmTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** How long to wait before requeueing a delivery whose dead-letter publish failed (default 5 s). */
        public Builder deadLetterFailureDelay(Duration delay) {
            this.deadLetterFailureDelay = nonNegative(delay, "deadLetterFailureDelay");
            return this;
        }

        /** The clock of the {@link DeadLetterHeaders#DEAD_AT} header (default UTC system clock). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Told, with the reason, of each message this listener dead-letters without its consumer having
         * answered DEAD_LETTER: one without a valid message id, one whose payload is not UTF-8, one still
         * to be retried on its last delivery ({@link #maxDeliveries}). What the consumer dead-letters it
         * counts itself. Called on the consumer thread once the dead letter is confirmed; must not throw.
         */
        public Builder onOwnDeadLetter(Consumer<String> listener) {
            this.onOwnDeadLetter = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * The listener.
         *
         * @throws IllegalArgumentException when the template is not configured for correlated
         *     confirms, returns and mandatory publishing
         * @throws NullPointerException when no dead-letter exchange was given
         */
        public IdempotentRabbitListener build() {
            return new IdempotentRabbitListener(this);
        }

        private static Duration nonNegative(Duration value, String what) {
            Objects.requireNonNull(value, what);
            if (value.isNegative()) {
                throw new IllegalArgumentException(what + " must not be negative");
            }
            return value;
        }
    }
}
