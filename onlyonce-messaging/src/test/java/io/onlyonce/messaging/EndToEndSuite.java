package io.onlyonce.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Outbox, relay, in-process broker and inbox together, as the embedded default runs them. */
abstract class EndToEndSuite {

    private final AbstractMessagingTest t;

    EndToEndSuite(AbstractMessagingTest test) {
        this.t = test;
    }

    @Test
    void tenThousandMessagesWithDuplicatesAndAConsumerRestartTakeEffectExactlyOnce() throws Exception {
        Assumptions.assumeTrue(t.runsLongTests(), "long test");
        int messages = 10_000;
        int perTransaction = 100;
        String queue = "stock";
        MessageHandler handler = (message, connection) -> AbstractMessagingTest.insertEffect(connection, queue, message);
        ConsumerConfig config = ConsumerConfig.ofDefaults();
        IdempotentConsumer first = new IdempotentConsumer(queue, t.dataSource(), t.dialect(), handler, config);
        IdempotentConsumer restarted = new IdempotentConsumer(queue, t.dataSource(), t.dialect(), handler, config);
        JdbcOutbox outbox = new JdbcOutbox(t.dialect());
        AtomicInteger duplicatedPublishes = new AtomicInteger();

        try (InProcessBroker broker = new InProcessBroker()) {
            broker.bind(AbstractMessagingTest.EXCHANGE, AbstractMessagingTest.ROUTING_KEY, queue);
            broker.consume(queue, first, 4);
            // a broker path that delivers 30 % of the messages twice (a producer re-send after a lost
            // confirm, a redelivery after a consumer crash): the inbox must drop the second copy
            MessageTransport duplicating = message -> {
                CompletableFuture<Void> once = broker.publish(message);
                if (Math.floorMod(message.id().hashCode(), 10) < 3) {
                    duplicatedPublishes.incrementAndGet();
                    return CompletableFuture.allOf(once, broker.publish(message));
                }
                return once;
            };
            OutboxRelay relay = new OutboxRelay(t.dataSource(), t.dialect(), duplicating,
                    RelayConfig.custom().batchSize(200).pollInterval(Duration.ofMillis(200)).build());
            relay.start();
            int recordedTwice = 0;
            try {
                for (int start = 0; start < messages; start += perTransaction) {
                    int from = start;
                    recordedTwice += t.inTransaction(connection -> {
                        int refused = 0;
                        for (int i = from; i < from + perTransaction; i++) {
                            OutboxMessage message = AbstractMessagingTest.message("order" + i + "_stock_deduct");
                            outbox.record(connection, message);
                            if (i % 10 < 3 && !outbox.record(connection, message)) { // 30 % recorded twice
                                refused++;
                            }
                        }
                        return refused;
                    });
                    relay.wakeUp();
                    if (start == messages / 2) {
                        broker.cancel(queue); // the consumer restarts mid-stream
                        broker.consume(queue, restarted, 4);
                    }
                }
                await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(250))
                        .until(() -> t.rowsWithStatus("SUCCESS") == messages);
            } finally {
                relay.stop();
            }

            assertThat(recordedTwice).as("second records refused").isEqualTo(messages * 3 / 10);
            assertThat(t.outboxRows()).isEqualTo(messages);
            assertThat(t.effectRows()).as("every effect exactly once").isEqualTo(messages);
            assertThat(t.database().queryLong("SELECT COUNT(DISTINCT message_id) FROM test_effect")).isEqualTo(messages);
            assertThat(t.inboxRows()).isEqualTo(messages);
            long processed = first.stats().processed() + restarted.stats().processed();
            long duplicates = first.stats().duplicates() + restarted.stats().duplicates();
            assertThat(processed).isEqualTo(messages);
            assertThat(duplicates).as("every second copy dropped").isGreaterThanOrEqualTo(duplicatedPublishes.get());
            assertThat(restarted.stats().processed()).as("the restarted consumer took over").isPositive();
            assertThat(broker.deadLetters(queue)).isEmpty();
            assertThat(broker.depth(queue)).isZero();
        }
    }
}
