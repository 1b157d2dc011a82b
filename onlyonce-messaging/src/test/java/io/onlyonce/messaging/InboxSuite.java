package io.onlyonce.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.jdbc.JdbcIdempotencyStore;
import io.onlyonce.messaging.ScratchDatabase.PoolMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/** The idempotent consumers: inbox in the effect's transaction, duplicates, retries, dead letters. */
abstract class InboxSuite {

    private static final ConsumerConfig QUICK = ConsumerConfig.custom().initialBackoff(Duration.ofMillis(5))
            .maxBackoff(Duration.ofMillis(20)).build();

    private final AbstractMessagingTest t;

    InboxSuite(AbstractMessagingTest test) {
        this.t = test;
    }

    private static InboundMessage delivery(String id) {
        return new InboundMessage(id, AbstractMessagingTest.EXCHANGE, AbstractMessagingTest.ROUTING_KEY,
                "{\"id\":\"" + id + "\"}", Map.of("X-Request-ID", "req-" + id), false);
    }

    private IdempotentConsumer consumer(String name, MessageHandler handler, ConsumerConfig config) {
        return new IdempotentConsumer(name, t.dataSource(), t.dialect(), handler, config);
    }

    private static MessageHandler effect(String consumer) {
        return (message, connection) -> AbstractMessagingTest.insertEffect(connection, consumer, message);
    }

    private static <T> List<T> race(int threads, Callable<T> task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                futures.add(pool.submit(() -> {
                    start.await();
                    return task.call();
                }));
            }
            start.countDown();
            List<T> results = new ArrayList<>();
            for (Future<T> future : futures) {
                results.add(future.get(120, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void sixtyFourConcurrentDeliveriesOfOneMessageTakeEffectOnce() throws Exception {
        String id = AbstractMessagingTest.uniqueId("pay");
        AtomicInteger handled = new AtomicInteger();
        IdempotentConsumer consumer = consumer("billing", (message, connection) -> {
            handled.incrementAndGet();
            AbstractMessagingTest.insertEffect(connection, "billing", message);
            Thread.sleep(20); // hold the inbox row uncommitted while the others arrive
        }, QUICK);

        List<Delivery> results = race(64, () -> consumer.process(delivery(id)));

        assertThat(results).filteredOn(r -> r.kind() == Delivery.Kind.PROCESSED).hasSize(1);
        assertThat(results).filteredOn(r -> r.kind() == Delivery.Kind.DUPLICATE).hasSize(63);
        assertThat(t.effects(id)).isEqualTo(1);
        assertThat(handled.get()).isEqualTo(1);
        assertThat(t.inboxRows()).isEqualTo(1);
        assertThat(consumer.stats()).isEqualTo(new ConsumerStats(1, 63, 0, 0, 0));
    }

    @Test
    void aHandlerFailureRollsBackTheInboxRowSoARedeliveryProcessesTheMessage() throws Exception {
        String id = AbstractMessagingTest.uniqueId("pay");
        AtomicInteger calls = new AtomicInteger();
        IdempotentConsumer consumer = consumer("billing", (message, connection) -> {
            AbstractMessagingTest.insertEffect(connection, "billing", message);
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("downstream hiccup after the effect was written");
            }
        }, QUICK.toBuilder().maxAttempts(1).build());

        Delivery first = consumer.process(delivery(id));
        assertThat(first).isEqualTo(Delivery.deadLetter("failed 1 attempt: IllegalStateException: downstream hiccup after the effect was written"));
        assertThat(t.effects(id)).as("the effect rolled back").isZero();
        assertThat(t.inboxRows()).as("the inbox row rolled back with it").isZero();

        assertThat(consumer.process(delivery(id))).isEqualTo(Delivery.PROCESSED);
        assertThat(consumer.process(delivery(id))).isEqualTo(Delivery.DUPLICATE);
        assertThat(t.effects(id)).isEqualTo(1);
        assertThat(t.inboxRows()).isEqualTo(1);
    }

    @Test
    void failedAttemptsAreTriedAgainInProcessAndOnlyTheLastOneCommits() throws Exception {
        String id = AbstractMessagingTest.uniqueId("pay");
        AtomicInteger calls = new AtomicInteger();
        IdempotentConsumer consumer = consumer("billing", (message, connection) -> {
            AbstractMessagingTest.insertEffect(connection, "billing", message);
            if (calls.incrementAndGet() < 3) {
                throw new IllegalStateException("flaky");
            }
        }, QUICK);

        assertThat(consumer.process(delivery(id))).isEqualTo(Delivery.PROCESSED);

        assertThat(calls.get()).isEqualTo(3);
        assertThat(t.effects(id)).isEqualTo(1);
        assertThat(consumer.stats()).isEqualTo(new ConsumerStats(1, 0, 2, 0, 0));
    }

    @Test
    void aPoisonMessageIsDeadLetteredAfterTheConfiguredAttempts() throws Exception {
        String id = AbstractMessagingTest.uniqueId("poison");
        AtomicInteger calls = new AtomicInteger();
        IdempotentConsumer consumer = consumer("billing", (message, connection) -> {
            calls.incrementAndGet();
            AbstractMessagingTest.insertEffect(connection, "billing", message);
            throw new NumberFormatException("For input string: \"abc\"");
        }, QUICK.toBuilder().maxAttempts(4).build());

        Delivery result = consumer.process(delivery(id));

        assertThat(result.kind()).isEqualTo(Delivery.Kind.DEAD_LETTER);
        assertThat(((Delivery.DeadLetter) result).reason()).isEqualTo("failed 4 attempts: NumberFormatException: For input string: \"abc\"");
        assertThat(result.acknowledge()).isFalse();
        assertThat(calls.get()).isEqualTo(4);
        assertThat(t.effects(id)).isZero();
        assertThat(t.inboxRows()).isZero();
        assertThat(consumer.stats()).isEqualTo(new ConsumerStats(0, 0, 3, 0, 1));
    }

    @Test
    void aHandlerThatBreaksItsOwnTransactionCannotLoop() throws Exception {
        String id = AbstractMessagingTest.uniqueId("broken");
        IdempotentConsumer consumer = consumer("billing", (message, connection) -> {
            AbstractMessagingTest.insertEffect(connection, "billing", message);
            try (java.sql.Statement statement = connection.createStatement()) {
                statement.execute("SELECT * FROM no_such_table");
            } catch (java.sql.SQLException swallowed) {
                // a handler bug: on PostgreSQL the transaction is now aborted and cannot commit
            }
        }, QUICK);

        Delivery result = consumer.process(delivery(id));

        if (t.dialect() == io.onlyonce.jdbc.sql.JdbcDialect.POSTGRESQL) {
            assertThat(result.kind()).isEqualTo(Delivery.Kind.DEAD_LETTER);
            assertThat(((Delivery.DeadLetter) result).reason()).startsWith("failed 3 attempts: could not commit: ");
            assertThat(t.effects(id)).isZero();
            assertThat(t.inboxRows()).isZero();
        } else { // MySQL, MariaDB and H2 roll back the failed statement only
            assertThat(result).isEqualTo(Delivery.PROCESSED);
            assertThat(t.effects(id)).isEqualTo(1);
        }
    }

    @Test
    void aPermanentFailureIsDeadLetteredAtOnceWithItsReason() throws Exception {
        String id = AbstractMessagingTest.uniqueId("gone");
        AtomicInteger calls = new AtomicInteger();
        IdempotentConsumer consumer = consumer("billing", (message, connection) -> {
            calls.incrementAndGet();
            AbstractMessagingTest.insertEffect(connection, "billing", message);
            throw new PermanentMessageFailure("order 42 does not exist");
        }, QUICK);

        assertThat(consumer.process(delivery(id))).isEqualTo(Delivery.deadLetter("order 42 does not exist"));
        assertThat(calls.get()).isEqualTo(1);
        assertThat(t.effects(id)).isZero();
        assertThat(t.inboxRows()).isZero();
    }

    @Test
    void aMissingOrMalformedMessageIdIsDeadLetteredAndNeverProcessed() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        IdempotentConsumer consumer = consumer("billing", (message, connection) -> calls.incrementAndGet(), QUICK);

        assertThat(consumer.process(delivery(null))).isEqualTo(Delivery.deadLetter("missing message id"));
        assertThat(consumer.process(delivery(""))).isEqualTo(Delivery.deadLetter("missing message id"));
        for (String bad : List.of("has space", "x".repeat(256), "caf\u00e9", "line\nbreak")) {
            Delivery result = consumer.process(delivery(bad));
            assertThat(result.kind()).as(bad).isEqualTo(Delivery.Kind.DEAD_LETTER);
            assertThat(((Delivery.DeadLetter) result).reason()).startsWith("malformed message id");
        }
        assertThat(calls.get()).isZero();
        assertThat(t.inboxRows()).isZero();
        assertThat(consumer.stats().deadLettered()).isEqualTo(6);
    }

    @Test
    void anUnreachableDatabaseIsRetryNotDeadLetter() {
        Optional<DataSource> unreachable = t.database().mode() == PoolMode.AUTOCOMMIT
                ? t.database().unreachableDataSource() : Optional.empty();
        Assumptions.assumeTrue(unreachable.isPresent(), "a server database, once per server");
        AtomicInteger calls = new AtomicInteger();
        IdempotentConsumer consumer = new IdempotentConsumer("billing", unreachable.get(), t.dialect(),
                (message, connection) -> calls.incrementAndGet(), QUICK);

        Delivery result = consumer.process(delivery("m1"));

        assertThat(result.kind()).isEqualTo(Delivery.Kind.RETRY);
        assertThat(((Delivery.Retry) result).reason()).startsWith("database unavailable: ");
        assertThat(calls.get()).isZero();
        assertThat(consumer.stats().requeued()).isEqualTo(1);
    }

    @Test
    void eachConsumerHasItsOwnInbox() throws Exception {
        String id = AbstractMessagingTest.uniqueId("fanout");
        IdempotentConsumer stock = consumer("stock", effect("stock"), QUICK);
        IdempotentConsumer mail = consumer("mail", effect("mail"), QUICK);

        assertThat(stock.process(delivery(id))).isEqualTo(Delivery.PROCESSED);
        assertThat(mail.process(delivery(id))).isEqualTo(Delivery.PROCESSED);
        assertThat(stock.process(delivery(id))).isEqualTo(Delivery.DUPLICATE);

        assertThat(t.database().query("SELECT consumer FROM test_effect WHERE message_id = ?", rs -> rs.getString(1), id))
                .containsExactlyInAnyOrder("stock", "mail");
        assertThat(t.database().query("SELECT consumer FROM onlyonce_inbox WHERE message_id = ?", rs -> rs.getString(1), id))
                .containsExactlyInAnyOrder("stock", "mail");
    }

    @Test
    void theRequestIdIsInTheMdcWhileTheMessageIsProcessed() throws Exception {
        String id = AbstractMessagingTest.uniqueId("traced");
        AtomicReference<String> seen = new AtomicReference<>();
        AtomicReference<String> seenMessageId = new AtomicReference<>();
        IdempotentConsumer consumer = consumer("billing", (message, connection) -> {
            seen.set(MDC.get("requestId"));
            seenMessageId.set(MDC.get("messageId"));
        }, QUICK);
        MDC.put("requestId", "the-threads-own");

        consumer.process(delivery(id));

        assertThat(seen.get()).isEqualTo("req-" + id);
        assertThat(seenMessageId.get()).isEqualTo(id);
        assertThat(MDC.get("requestId")).isEqualTo("the-threads-own");
        MDC.clear();
    }

    @Test
    void thePurgeDeletesInboxRowsOlderThanTheRetention() throws Exception {
        IdempotentConsumer consumer = consumer("billing", effect("billing"), QUICK);
        for (String id : List.of("old1", "old2", "old3", "new1")) {
            consumer.process(delivery(id));
        }
        t.database().update("UPDATE onlyonce_inbox SET processed_at_ms = processed_at_ms - 86400000 WHERE message_id LIKE 'old%'");

        assertThat(new JdbcInbox(t.dialect()).purge(t.dataSource(), Duration.ofHours(1), 2)).isEqualTo(3);

        assertThat(t.database().query("SELECT message_id FROM onlyonce_inbox", rs -> rs.getString(1))).containsExactly("new1");
        assertThat(consumer.process(delivery("old1"))).as("a purged id is processed again").isEqualTo(Delivery.PROCESSED);
        assertThatThrownBy(() -> new JdbcInbox(t.dialect()).purge(t.dataSource(), Duration.ofHours(1), 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theStoreKeyedConsumerOnTheDatabaseStoreRunsAnEffectOnceAcrossConcurrentDeliveries() throws Exception {
        String id = AbstractMessagingTest.uniqueId("mail");
        AtomicInteger mailsSent = new AtomicInteger();
        StoreIdempotentConsumer consumer = new StoreIdempotentConsumer("mailer",
                new JdbcIdempotencyStore(t.dataSource(), t.dialect()), message -> {
                    mailsSent.incrementAndGet();
                    Thread.sleep(20);
                }, QUICK);

        List<Delivery> results = race(16, () -> {
            Delivery result;
            do { // a RETRY is redelivered by the broker: here, at once
                result = consumer.process(delivery(id));
            } while (result.kind() == Delivery.Kind.RETRY);
            return result;
        });

        assertThat(mailsSent.get()).isEqualTo(1);
        assertThat(results).filteredOn(r -> r.kind() == Delivery.Kind.PROCESSED).hasSize(1);
        assertThat(results).filteredOn(r -> r.kind() == Delivery.Kind.DUPLICATE).hasSize(15);
        assertThat(t.database().queryLong("SELECT COUNT(*) FROM onlyonce_idempotency WHERE scope = ? AND idem_key = ?",
                "consumer:mailer", id)).isEqualTo(1);
    }

    @Test
    void deadLetterMarksAreInboxRowsApartFromTheConsumersOwnAndArePurgedWithThem() throws Exception {
        DeadLetterMarks marks = new DeadLetterMarks(t.dataSource(), t.dialect());
        IdempotentConsumer consumer = consumer("points", effect("points"), QUICK);
        assertThat(consumer.process(delivery("orders-0@7"))).isEqualTo(Delivery.PROCESSED);

        assertThat(marks.markedAt("points", "orders", 0, 7)).as("a message id is not a mark").isEmpty();
        long before = t.serverNow();
        assertThat(marks.record("points", "orders", 0, 7)).as("a new mark").isTrue();
        assertThat(marks.record("points", "orders", 0, 7)).as("marked again: nothing changes").isFalse();
        assertThat(marks.markedAt("points", "orders", 0, 7).orElseThrow()).as("on the server's clock")
                .isBetween(before - 1_000, t.serverNow() + 1_000);
        assertThat(marks.markedAt("points", "orders", 1, 7)).as("another partition").isEmpty();
        assertThat(marks.markedAt("billing", "orders", 0, 7)).as("another consumer").isEmpty();
        assertThat(t.database().queryLong("SELECT COUNT(*) FROM " + MessagingSchema.INBOX_TABLE + " WHERE consumer = ?",
                "points")).as("the consumer's own rows: the message it processed").isEqualTo(1);
        assertThat(t.database().queryLong("SELECT COUNT(*) FROM " + MessagingSchema.INBOX_TABLE
                + " WHERE consumer = ? AND message_id = ?", "dead-lettered points", "orders-0@7")).isEqualTo(1);

        String longName = "c".repeat(250);
        String longTopic = "t".repeat(249);
        assertThat(marks.record(longName, longTopic, 12, Long.MAX_VALUE)).isTrue();
        assertThat(marks.markedAt(longName, longTopic, 12, Long.MAX_VALUE)).isPresent();
        assertThat(DeadLetterMarks.namespace(longName)).startsWith("dead-lettered sha256:").hasSizeLessThan(255);
        assertThat(DeadLetterMarks.position(longTopic, 12, Long.MAX_VALUE)).startsWith("sha256:");
        assertThat(DeadLetterMarks.namespace("sha256:x")).as("a name that looks hashed is hashed")
                .isNotEqualTo("dead-lettered sha256:x");

        Thread.sleep(20);
        new JdbcInbox(t.dialect()).purge(t.dataSource(), Duration.ofMillis(10), 100);
        assertThat(marks.markedAt("points", "orders", 0, 7)).as("purged with the inbox").isEmpty();
    }
}
