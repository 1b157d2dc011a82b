package io.onlyonce.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class InProcessBrokerTest {

    private final InProcessBroker broker = new InProcessBroker(Duration.ofMillis(5), Duration.ofMillis(20));

    @AfterEach
    void close() {
        broker.close();
    }

    /** A consumer that answers through {@code answer} and keeps what it received. */
    static final class ScriptedConsumer implements MessageConsumer {
        final List<InboundMessage> received = new CopyOnWriteArrayList<>();
        private final Function<InboundMessage, Delivery> answer;

        ScriptedConsumer(Function<InboundMessage, Delivery> answer) {
            this.answer = answer;
        }

        @Override
        public String name() {
            return "scripted";
        }

        @Override
        public Delivery process(InboundMessage message) {
            received.add(message);
            return answer.apply(message);
        }

        @Override
        public ConsumerStats stats() {
            return new ConsumerStats(0, 0, 0, 0, 0);
        }
    }

    private static OutboxMessage message(String id, String routingKey) {
        return new OutboxMessage(id, "shop", routingKey, "{}", Map.of("X-Request-ID", "r-" + id));
    }

    @Test
    void aMessageNoBindingRoutesFailsAsUnroutable() {
        broker.bind("shop", "order.paid", "q");

        CompletableFuture<Void> future = broker.publish(message("m1", "order.cancelled"));

        assertThatThrownBy(future::get).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(UnroutableMessageException.class)
                .hasMessage("no queue is bound to exchange 'shop' with routing key 'order.cancelled'");
    }

    @Test
    void theConfirmIsTheConsumersOutcomeOnEveryBoundQueue() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        ScriptedConsumer slow = new ScriptedConsumer(m -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Delivery.PROCESSED;
        });
        ScriptedConsumer fast = new ScriptedConsumer(m -> Delivery.DUPLICATE);
        broker.bind("shop", "order.paid", "stock").bind("shop", "order.paid", "mail").bind("shop", "order.paid", "mail");
        broker.consume("stock", slow);
        broker.consume("mail", fast);

        CompletableFuture<Void> future = broker.publish(message("m1", "order.paid"));

        await().atMost(Duration.ofSeconds(10)).until(() -> fast.received.size() == 1 && slow.received.size() == 1);
        assertThat(future).as("one queue's consumer is still at work").isNotDone();
        release.countDown();
        future.get(10, TimeUnit.SECONDS);
        assertThat(fast.received).hasSize(1).allSatisfy(m -> {
            assertThat(m.id()).isEqualTo("m1");
            assertThat(m.headers()).containsEntry("X-Request-ID", "r-m1");
            assertThat(m.redelivered()).isFalse();
        });
    }

    @Test
    void aRetryIsRedeliveredFlaggedUntilTheConsumerIsDone() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        ScriptedConsumer consumer = new ScriptedConsumer(m -> calls.incrementAndGet() < 3 ? Delivery.retry("database down")
                : Delivery.PROCESSED);
        broker.bind("shop", "order.paid", "q").consume("q", consumer);

        broker.publish(message("m1", "order.paid")).get(10, TimeUnit.SECONDS);

        assertThat(consumer.received).extracting(InboundMessage::redelivered).containsExactly(false, true, true);
        assertThat(broker.depth("q")).isZero();
    }

    @Test
    void aDeadLetterIsKeptWithItsReasonAndConfirmsThePublish() throws Exception {
        broker.bind("shop", "order.paid", "q").consume("q", new ScriptedConsumer(m -> Delivery.deadLetter("order 42 does not exist")));
        broker.consume("other", new ScriptedConsumer(m -> Delivery.PROCESSED));

        broker.publish(message("m1", "order.paid")).get(10, TimeUnit.SECONDS);

        assertThat(broker.deadLetters("q")).singleElement().satisfies(dead -> {
            assertThat(dead.queue()).isEqualTo("q");
            assertThat(dead.message().id()).isEqualTo("m1");
            assertThat(dead.reason()).isEqualTo("order 42 does not exist");
        });
        assertThat(broker.deadLetterCount("q")).isEqualTo(1);
        assertThat(broker.deadLetters("other")).isEmpty();
        assertThat(broker.deadLetters("unknown")).isEmpty();
    }

    @Test
    void aConsumerThatThrowsIsRedelivered() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        broker.bind("shop", "k", "q").consume("q", new ScriptedConsumer(m -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("bug");
            }
            return Delivery.PROCESSED;
        }));

        broker.publish(message("m1", "k")).get(10, TimeUnit.SECONDS);

        assertThat(calls.get()).isEqualTo(2);
    }

    @Test
    void messagesWaitForAConsumerAndSurviveItsRestart() throws Exception {
        broker.bind("shop", "k", "q");
        CompletableFuture<Void> first = broker.publish(message("m1", "k"));
        assertThat(broker.depth("q")).isEqualTo(1);

        ScriptedConsumer before = new ScriptedConsumer(m -> Delivery.PROCESSED);
        broker.consume("q", before);
        first.get(10, TimeUnit.SECONDS);
        assertThatThrownBy(() -> broker.consume("q", before)).isInstanceOf(IllegalStateException.class);
        broker.cancel("q");

        CompletableFuture<Void> second = broker.publish(message("m2", "k"));
        Thread.sleep(100);
        assertThat(second).as("no consumer while restarting").isNotDone();
        assertThat(broker.depth("q")).isEqualTo(1);
        ScriptedConsumer after = new ScriptedConsumer(m -> Delivery.PROCESSED);
        broker.consume("q", after, 3);
        second.get(10, TimeUnit.SECONDS);

        assertThat(before.received).extracting(InboundMessage::id).containsExactly("m1");
        assertThat(after.received).extracting(InboundMessage::id).containsExactly("m2");
        assertThat(broker.queues()).containsExactly("q");
    }

    @Test
    void closingFailsWhatWasNeverConsumed() {
        broker.bind("shop", "k", "q");
        CompletableFuture<Void> waiting = broker.publish(message("m1", "k"));

        broker.close();

        assertThat(waiting).isCompletedExceptionally();
        assertThat(broker.publish(message("m2", "k"))).isCompletedExceptionally();
        assertThatThrownBy(() -> broker.consume("q", new ScriptedConsumer(m -> Delivery.PROCESSED)))
                .isInstanceOf(IllegalStateException.class);
    }
}
