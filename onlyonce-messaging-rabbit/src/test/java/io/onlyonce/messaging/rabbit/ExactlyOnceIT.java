package io.onlyonce.messaging.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.messaging.OutboxMessage;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;

/**
 * Every effect exactly once through a real RabbitMQ, with duplicates published on purpose, a
 * consumer killed mid-stream, and two containers on one queue.
 */
class ExactlyOnceIT {

    static final String CONSUMER = "stock";

    static ScratchVhost vhost;
    static RabbitAdmin admin;
    static RabbitTemplate confirming;
    static RabbitMessageTransport transport;

    InboxDatabase database;
    final List<SimpleMessageListenerContainer> containers = new ArrayList<>();

    @BeforeAll
    static void setUpBroker() {
        vhost = ScratchVhost.create("exactly-once");
        admin = vhost.admin();
        confirming = vhost.confirmingTemplate();
        transport = new RabbitMessageTransport(confirming, Duration.ofSeconds(30));
    }

    @AfterAll
    static void tearDownBroker() {
        if (vhost != null) {
            vhost.close();
        }
    }

    @BeforeEach
    void setUp() {
        database = new InboxDatabase();
    }

    @AfterEach
    void tearDown() {
        containers.forEach(SimpleMessageListenerContainer::stop);
        database.close();
    }

    private IdempotentRabbitListener newListener(RabbitTopology topology) {
        return IdempotentRabbitListener.builder(database.consumer(CONSUMER, InboxDatabase.writeEffect(CONSUMER)),
                        confirming)
                .topology(topology)
                .requeueDelay(Duration.ZERO)
                .build();
    }

    private SimpleMessageListenerContainer start(IdempotentRabbitListener listener, CachingConnectionFactory factory,
            RabbitTopology topology, int consumers, int prefetch) {
        SimpleMessageListenerContainer container = listener.newContainer(factory, topology.queue());
        container.setConcurrentConsumers(consumers);
        container.setPrefetchCount(prefetch);
        container.start();
        containers.add(container);
        return container;
    }

    private static CompletableFuture<Void> publish(RabbitTopology topology, String id) {
        return transport.publish(new OutboxMessage(id, topology.exchange(), "stock.deduct",
                "{\"order\":\"" + id + "\"}", Map.of("X-Request-ID", "req-" + id)));
    }

    private long depth(String queue) {
        return admin.getQueueInfo(queue).getMessageCount();
    }

    @Test
    void tenThousandMessagesWithDuplicatesAndAKilledConsumerTakeEffectExactlyOnce() throws Exception {
        RabbitTopology topology = RabbitTopology.forConsumer("killed.events", "stock.*", "killed");
        topology.declare(admin);
        int messages = 10_000;

        List<CompletableFuture<Void>> confirms = new ArrayList<>();
        AtomicInteger published = new AtomicInteger();
        CompletableFuture<Void> publishing = CompletableFuture.runAsync(() -> {
            // 30 % twice, the second copy about 150 messages later: a relay that re-sent after a lost confirm
            ArrayDeque<String> resend = new ArrayDeque<>();
            for (int i = 0; i < messages; i++) {
                confirms.add(publish(topology, "order-" + i));
                published.incrementAndGet();
                if (i % 10 < 3) {
                    resend.add("order-" + i);
                }
                if (resend.size() > 45) {
                    confirms.add(publish(topology, resend.poll()));
                }
            }
            resend.forEach(id -> confirms.add(publish(topology, id)));
        });

        // the first consumer starts on a backlog, so that it holds unacked deliveries when it is killed
        ScratchVhost.await("60 % published", Duration.ofSeconds(120), () -> published.get() >= messages * 6 / 10);
        CachingConnectionFactory firstFactory = vhost.plainFactory();
        IdempotentRabbitListener first = newListener(topology);
        SimpleMessageListenerContainer firstContainer = start(first, firstFactory, topology, 4, 50);
        firstContainer.setShutdownTimeout(0);
        ScratchVhost.await("a third of the effects", Duration.ofSeconds(120),
                () -> database.count("SELECT COUNT(*) FROM effects") >= messages / 3);
        // kill the consumer: its connection drops without acking what it holds or is processing
        firstFactory.createConnection().getDelegate().abort();
        firstContainer.stop();
        long effectsAtKill = database.count("SELECT COUNT(*) FROM effects");

        IdempotentRabbitListener second = newListener(topology);
        start(second, vhost.plainFactory(), topology, 4, 50);

        publishing.get(120, TimeUnit.SECONDS);
        CompletableFuture.allOf(confirms.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        assertThat(confirms).hasSize(messages + messages * 3 / 10);
        drain(topology, second, messages);

        assertThat(effectsAtKill).isLessThan(messages);
        assertThat(database.count("SELECT COUNT(*) FROM effects")).isEqualTo(messages);
        assertThat(database.count("SELECT COUNT(DISTINCT message_id) FROM effects")).isEqualTo(messages);
        assertThat(database.count("SELECT COUNT(*) FROM " + InboxDatabase.INBOX)).isEqualTo(messages);
        assertThat(first.duplicates() + second.duplicates()).isGreaterThanOrEqualTo(messages * 3 / 10);
        assertThat(second.processed()).isPositive();
        assertThat(database.redeliveries.get()).as("deliveries the killed consumer left unacked").isPositive();
        assertThat(first.deadLettered() + second.deadLettered()).isZero();
        assertThat(depth(topology.queue())).isZero();
        assertThat(depth(topology.deadLetterQueue())).isZero();
    }

    @Test
    void twoContainersConsumingOneQueueStillTakeEachEffectOnce() throws Exception {
        RabbitTopology topology = RabbitTopology.forConsumer("shared.events", "stock.*", "shared");
        topology.declare(admin);
        int messages = 3_000;
        IdempotentRabbitListener left = newListener(topology);
        IdempotentRabbitListener right = newListener(topology);
        start(left, vhost.plainFactory(), topology, 3, 1);
        start(right, vhost.plainFactory(), topology, 3, 1);

        List<CompletableFuture<Void>> confirms = new ArrayList<>();
        int duplicates = 0;
        for (int i = 0; i < messages; i++) {
            confirms.add(publish(topology, "order-" + i));
            if (i % 3 == 0) { // back to back: the two copies are taken by different consumers at once
                confirms.add(publish(topology, "order-" + i));
                duplicates++;
            }
        }
        CompletableFuture.allOf(confirms.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        int expectedDuplicates = duplicates;

        ScratchVhost.await("every delivery settled", Duration.ofSeconds(120), () -> left.processed() + right.processed()
                + left.duplicates() + right.duplicates() == messages + expectedDuplicates);

        assertThat(left.processed() + right.processed()).isEqualTo(messages);
        assertThat(left.duplicates() + right.duplicates()).isEqualTo(expectedDuplicates);
        assertThat(left.processed() + left.duplicates()).isPositive();
        assertThat(right.processed() + right.duplicates()).isPositive();
        assertThat(database.count("SELECT COUNT(*) FROM effects")).isEqualTo(messages);
        assertThat(database.count("SELECT COUNT(DISTINCT message_id) FROM effects")).isEqualTo(messages);
        assertThat(database.count("SELECT COUNT(*) FROM " + InboxDatabase.INBOX)).isEqualTo(messages);
        containers.forEach(SimpleMessageListenerContainer::stop);
        assertThat(depth(topology.queue())).isZero();
        assertThat(depth(topology.deadLetterQueue())).isZero();
    }

    /**
     * Waits until every message took effect and the queue is empty, then stops the containers
     * gracefully; deliveries they had prefetched go back to the queue, so it runs one more
     * container until the queue stays empty.
     */
    private void drain(RabbitTopology topology, IdempotentRabbitListener listener, int messages) {
        for (int round = 0; round < 5; round++) {
            ScratchVhost.await("all effects and an empty queue", Duration.ofSeconds(120),
                    () -> database.count("SELECT COUNT(*) FROM effects") >= messages && depth(topology.queue()) == 0);
            containers.forEach(container -> {
                container.setShutdownTimeout(10_000);
                container.stop();
            });
            if (depth(topology.queue()) == 0) {
                return;
            }
            start(listener, vhost.plainFactory(), topology, 4, 50);
        }
        throw new AssertionError("the queue did not stay empty");
    }
}
