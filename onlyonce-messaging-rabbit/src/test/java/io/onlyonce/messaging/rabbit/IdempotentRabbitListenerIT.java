package io.onlyonce.messaging.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.messaging.MessageHandler;
import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.messaging.PermanentMessageFailure;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;

/** The listener against a real RabbitMQ: acks, bounded requeues, dead letters and their replay. */
class IdempotentRabbitListenerIT {

    static ScratchVhost vhost;
    static RabbitAdmin admin;
    static RabbitTemplate confirming;
    static RabbitTemplate reader;
    static CachingConnectionFactory consumers;
    static RabbitMessageTransport transport;

    InboxDatabase database;
    RabbitTopology topology;
    final List<SimpleMessageListenerContainer> containers = new ArrayList<>();

    @BeforeAll
    static void setUpBroker() {
        vhost = ScratchVhost.create("listener");
        admin = vhost.admin();
        confirming = vhost.confirmingTemplate();
        reader = new RabbitTemplate(vhost.plainFactory());
        consumers = vhost.plainFactory();
        transport = new RabbitMessageTransport(confirming);
    }

    @AfterAll
    static void tearDownBroker() {
        if (vhost != null) {
            vhost.close();
        }
    }

    @BeforeEach
    void setUp(TestInfo test) {
        database = new InboxDatabase();
        String name = test.getTestMethod().orElseThrow().getName();
        topology = RabbitTopology.forConsumer(name + ".events", "order.*", name);
    }

    @AfterEach
    void tearDown() {
        containers.forEach(SimpleMessageListenerContainer::stop);
        database.close();
    }

    private IdempotentRabbitListener start(IdempotentRabbitListener.Builder builder) {
        IdempotentRabbitListener listener = builder.topology(topology).build();
        SimpleMessageListenerContainer container = listener.newContainer(consumers, topology.queue());
        container.setConcurrentConsumers(2);
        container.start();
        containers.add(container);
        return listener;
    }

    private IdempotentRabbitListener.Builder listener(String consumer, MessageHandler handler) {
        return IdempotentRabbitListener.builder(database.consumer(consumer, handler), confirming)
                .requeueDelay(Duration.ZERO);
    }

    private void publish(String id) throws Exception {
        transport.publish(new OutboxMessage(id, topology.exchange(), "order.paid", "{\"id\":\"" + id + "\"}",
                Map.of("X-Request-ID", "req-" + id))).get(10, TimeUnit.SECONDS);
    }

    private long depth(String queue) {
        return admin.getQueueInfo(queue).getMessageCount();
    }

    private static Object header(Message message, String name) {
        return message.getMessageProperties().getHeaders().get(name);
    }

    @Test
    void aMessageDeliveredTwiceTakesEffectOnceAndBothAreAcked() throws Exception {
        topology.declare(admin);
        IdempotentRabbitListener listener = start(listener("billing", InboxDatabase.writeEffect("billing")));

        publish("o-1");
        publish("o-1");
        publish("o-2");

        ScratchVhost.await("3 deliveries settled", Duration.ofSeconds(30),
                () -> listener.processed() + listener.duplicates() == 3);
        assertThat(listener.processed()).isEqualTo(2);
        assertThat(listener.duplicates()).isEqualTo(1);
        assertThat(database.count("SELECT COUNT(*) FROM effects")).isEqualTo(2);
        assertThat(database.count("SELECT COUNT(*) FROM effects WHERE message_id = 'o-1' AND request_id = 'req-o-1'"))
                .isEqualTo(1);
        containers.forEach(SimpleMessageListenerContainer::stop);
        assertThat(depth(topology.queue())).isZero();
        assertThat(depth(topology.deadLetterQueue())).isZero();
    }

    @Test
    void aPoisonMessageIsDeadLetteredWithItsReasonAfterTheConsumersAttempts() throws Exception {
        topology.declare(admin);
        IdempotentRabbitListener listener = start(listener("billing", (message, connection) -> {
            throw new IllegalStateException("ledger locked");
        }));

        publish("poison-1");

        ScratchVhost.await("the poison message dead-lettered", Duration.ofSeconds(30),
                () -> depth(topology.deadLetterQueue()) == 1 && listener.deadLettered() == 1);
        assertThat(database.calls("poison-1")).isEqualTo(InboxDatabase.CONFIG.maxAttempts());
        assertThat(database.deliveries("poison-1")).isEqualTo(1);
        assertThat(listener.requeued()).isZero();
        assertThat(listener.deadLettered()).isEqualTo(1);
        assertThat(depth(topology.queue())).isZero();
        assertThat(database.count("SELECT COUNT(*) FROM effects")).isZero();
        assertThat(database.count("SELECT COUNT(*) FROM " + InboxDatabase.INBOX)).isZero();

        Message dead = reader.receive(topology.deadLetterQueue(), 5_000);
        assertThat(dead.getMessageProperties().getMessageId()).isEqualTo("poison-1");
        assertThat(new String(dead.getBody(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":\"poison-1\"}");
        assertThat((String) header(dead, DeadLetterHeaders.REASON)).contains("3 attempts").contains("ledger locked");
        assertThat(header(dead, DeadLetterHeaders.CONSUMER)).isEqualTo("billing");
        assertThat(header(dead, DeadLetterHeaders.ORIGINAL_EXCHANGE)).isEqualTo(topology.exchange());
        assertThat(header(dead, DeadLetterHeaders.ORIGINAL_ROUTING_KEY)).isEqualTo("order.paid");
        assertThat(header(dead, DeadLetterHeaders.ORIGINAL_QUEUE)).isEqualTo(topology.queue());
        assertThat(((Number) header(dead, DeadLetterHeaders.DELIVERIES)).intValue()).isEqualTo(1);
        assertThat(header(dead, DeadLetterHeaders.DEAD_AT)).isNotNull();
        assertThat(header(dead, "X-Request-ID")).isEqualTo("req-poison-1");
    }

    @Test
    void whileTheDatabaseIsDownAMessageIsRequeuedABoundedNumberOfTimesThenDeadLettered() throws Exception {
        topology.declare(admin);
        List<String> own = new java.util.concurrent.CopyOnWriteArrayList<>();
        IdempotentRabbitListener listener = start(listener("billing", InboxDatabase.writeEffect("billing"))
                .maxDeliveries(3).onOwnDeadLetter(own::add));
        database.down.set(true);

        publish("down-1");

        ScratchVhost.await("dead-lettered", Duration.ofSeconds(30), () -> depth(topology.deadLetterQueue()) == 1);
        assertThat(database.deliveries("down-1")).isEqualTo(3);
        assertThat(listener.requeued()).isEqualTo(2);
        assertThat(depth(topology.queue())).isZero();
        Message dead = reader.receive(topology.deadLetterQueue(), 5_000);
        assertThat((String) header(dead, DeadLetterHeaders.REASON))
                .startsWith("retries exhausted after 3 deliveries:").contains("database");
        assertThat(((Number) header(dead, DeadLetterHeaders.DELIVERIES)).intValue()).isEqualTo(3);
        ScratchVhost.await("told", Duration.ofSeconds(10), () -> own.size() == 1);
        assertThat(own).as("the listener's own decision, told").singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                .startsWith("retries exhausted after 3 deliveries:");
    }

    @Test
    void onQuorumQueuesTheBrokersDeliveryCountBoundsTheRetries() throws Exception {
        topology = topology.withDeliveryLimit(20);
        topology.declare(admin);
        assertThat(ScratchVhost.rabbitmqctl("list_queues", "-q", "-p", vhost.name, "name", "type"))
                .containsPattern("(?m)^" + topology.queue() + "\\s+quorum\\s*$");
        IdempotentRabbitListener listener = start(listener("shipping", InboxDatabase.writeEffect("shipping"))
                .maxDeliveries(4));
        database.down.set(true);

        publish("q-1");

        ScratchVhost.await("the message dead-lettered", Duration.ofSeconds(30),
                () -> depth(topology.deadLetterQueue()) == 1 && listener.deadLettered() == 1);
        assertThat(database.deliveries("q-1")).isEqualTo(4);
        assertThat(database.deliveryCountHeaders).containsEntry("q-1", "3");
        assertThat(listener.deadLettered()).isEqualTo(1);
        assertThat(depth(topology.queue())).isZero();
        Message dead = reader.receive(topology.deadLetterQueue(), 5_000);
        assertThat((String) header(dead, DeadLetterHeaders.REASON)).startsWith("retries exhausted after 4 deliveries:");
        assertThat(header(dead, "x-delivery-count")).isNull();
    }

    @Test
    void aPermanentFailureIsDeadLetteredAtOnce() throws Exception {
        topology.declare(admin);
        List<String> own = new java.util.concurrent.CopyOnWriteArrayList<>();
        IdempotentRabbitListener listener = start(listener("billing", (message, connection) -> {
            throw new PermanentMessageFailure("order o-9 does not exist");
        }).onOwnDeadLetter(own::add));

        publish("o-9");

        ScratchVhost.await("dead-lettered", Duration.ofSeconds(30), () -> depth(topology.deadLetterQueue()) == 1);
        assertThat(database.calls("o-9")).isEqualTo(1);
        assertThat(listener.requeued()).isZero();
        assertThat(depth(topology.queue())).isZero();
        Message dead = reader.receive(topology.deadLetterQueue(), 5_000);
        assertThat(header(dead, DeadLetterHeaders.REASON)).isEqualTo("order o-9 does not exist");
        assertThat(((Number) header(dead, DeadLetterHeaders.DELIVERIES)).intValue()).isEqualTo(1);
        ScratchVhost.await("counted", Duration.ofSeconds(10), () -> listener.deadLettered() == 1);
        assertThat(own).as("the consumer decided it and counts it itself").isEmpty();
    }

    @Test
    void messagesWithoutAValidIdOrUtf8BodyAreDeadLetteredAndNeverProcessed() throws Exception {
        topology.declare(admin);
        List<String> own = new java.util.concurrent.CopyOnWriteArrayList<>();
        IdempotentRabbitListener listener = start(listener("billing", InboxDatabase.writeEffect("billing"))
                .onOwnDeadLetter(own::add));

        reader.send(topology.exchange(), "order.paid", new Message("{}".getBytes(StandardCharsets.UTF_8), new MessageProperties()));
        MessageProperties malformed = new MessageProperties();
        malformed.setMessageId("has space");
        reader.send(topology.exchange(), "order.paid", new Message("{}".getBytes(StandardCharsets.UTF_8), malformed));
        MessageProperties binary = new MessageProperties();
        binary.setMessageId("bin-1");
        reader.send(topology.exchange(), "order.paid", new Message(new byte[] {(byte) 0xC3, (byte) 0x28}, binary));

        ScratchVhost.await("3 dead letters", Duration.ofSeconds(30),
                () -> depth(topology.deadLetterQueue()) == 3 && listener.deadLettered() == 3);
        assertThat(listener.deadLettered()).isEqualTo(3);
        assertThat(database.handlerCalls).isEmpty();
        assertThat(database.count("SELECT COUNT(*) FROM " + InboxDatabase.INBOX)).isZero();
        List<String> reasons = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            reasons.add((String) header(reader.receive(topology.deadLetterQueue(), 5_000), DeadLetterHeaders.REASON));
        }
        assertThat(reasons).containsExactlyInAnyOrder("missing message id",
                "malformed message id (not 1 to 255 visible ASCII characters)", "payload is not UTF-8");
        ScratchVhost.await("told", Duration.ofSeconds(10), () -> own.size() == 3);
        assertThat(own).containsExactlyInAnyOrderElementsOf(reasons);
        assertThat(depth(topology.queue())).isZero();
    }

    @Test
    void aDeadLetterThatCannotBePublishedStaysInTheQueueUntilItCan() throws Exception {
        topology.declare(admin);
        admin.removeBinding(topology.declarables().getDeclarablesByType(org.springframework.amqp.core.Binding.class).get(1));
        IdempotentRabbitListener listener = start(listener("billing", (message, connection) -> {
            throw new PermanentMessageFailure("bad order");
        }).deadLetterFailureDelay(Duration.ofMillis(50)));

        publish("lost-1");

        ScratchVhost.await("a failed dead-letter publish", Duration.ofSeconds(30), () -> listener.deadLetterFailures() >= 2);
        assertThat(listener.deadLettered()).isZero();
        assertThat(depth(topology.deadLetterQueue())).isZero();

        topology.declare(admin); // the dead-letter binding is back
        ScratchVhost.await("dead-lettered", Duration.ofSeconds(30), () -> depth(topology.deadLetterQueue()) == 1);
        containers.forEach(SimpleMessageListenerContainer::stop);
        assertThat(depth(topology.queue())).isZero();
        assertThat(reader.receive(topology.deadLetterQueue(), 5_000).getMessageProperties().getMessageId()).isEqualTo("lost-1");
    }

    @Test
    void replayedDeadLettersAreProcessedOnceTheCauseIsFixed() throws Exception {
        topology.declare(admin);
        AtomicBoolean broken = new AtomicBoolean(true);
        MessageHandler effect = InboxDatabase.writeEffect("billing");
        IdempotentRabbitListener listener = start(listener("billing", (message, connection) -> {
            if (broken.get()) {
                throw new PermanentMessageFailure("price list missing");
            }
            effect.handle(message, connection);
        }));
        publish("r-1");
        publish("r-2");
        ScratchVhost.await("2 dead letters", Duration.ofSeconds(30), () -> depth(topology.deadLetterQueue()) == 2);

        broken.set(false);
        int moved = new RabbitDeadLetters(confirming, Duration.ofSeconds(10)).replay(topology.deadLetterQueue(), 100);

        assertThat(moved).isEqualTo(2);
        ScratchVhost.await("2 effects", Duration.ofSeconds(30), () -> listener.processed() == 2);
        assertThat(database.count("SELECT COUNT(*) FROM effects")).isEqualTo(2);
        assertThat(database.count("SELECT COUNT(*) FROM effects WHERE request_id = 'req-r-1'")).isEqualTo(1);
        assertThat(depth(topology.deadLetterQueue())).isZero();
        assertThat(depth(topology.queue())).isZero();
    }

    @Test
    void whatTheBrokerDeadLettersAtItsDeliveryLimitIsReplayedFromItsXDeath() throws Exception {
        topology = topology.withDeliveryLimit(2);
        topology.declare(admin);
        IdempotentRabbitListener listener = start(listener("billing", InboxDatabase.writeEffect("billing"))
                .maxDeliveries(50));
        database.down.set(true);

        publish("limit-1");

        ScratchVhost.await("dead-lettered by the broker", Duration.ofSeconds(30),
                () -> depth(topology.deadLetterQueue()) == 1);
        assertThat(listener.deadLettered()).isZero();
        assertThat(database.deliveries("limit-1")).isGreaterThanOrEqualTo(2);

        database.down.set(false);
        int moved = new RabbitDeadLetters(confirming, Duration.ofSeconds(10)).replay(topology.deadLetterQueue(), 10);

        assertThat(moved).isEqualTo(1);
        ScratchVhost.await("processed", Duration.ofSeconds(30), () -> listener.processed() == 1);
        assertThat(database.count("SELECT COUNT(*) FROM effects WHERE message_id = 'limit-1' AND request_id = 'req-limit-1'"))
                .isEqualTo(1);
        assertThat(depth(topology.deadLetterQueue())).isZero();
        assertThat(depth(topology.queue())).isZero();
    }
}
