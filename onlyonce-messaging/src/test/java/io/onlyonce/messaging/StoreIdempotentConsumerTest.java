package io.onlyonce.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.memory.InMemoryIdempotencyStore;
import io.onlyonce.store.RecordStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The store-keyed consumer on the in-memory store, whose clock the test moves. */
class StoreIdempotentConsumerTest {

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-30T12:00:00Z"));
    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(now::get, 10_000);
    private final ConsumerConfig config = ConsumerConfig.custom().initialBackoff(Duration.ofMillis(1))
            .maxBackoff(Duration.ofMillis(2)).lease(Duration.ofSeconds(30)).retention(Duration.ofHours(1)).build();

    private static InboundMessage delivery(String id) {
        return new InboundMessage(id, "shop", "order.paid", "{}", Map.of("X-Request-ID", "r1"), false);
    }

    @Test
    void aProcessedMessageIsADuplicateUntilItsRetentionEnds() {
        AtomicInteger mails = new AtomicInteger();
        StoreIdempotentConsumer consumer = new StoreIdempotentConsumer("mailer", store, m -> mails.incrementAndGet(), config);

        assertThat(consumer.process(delivery("order1_paid"))).isEqualTo(Delivery.PROCESSED);
        assertThat(consumer.process(delivery("order1_paid"))).isEqualTo(Delivery.DUPLICATE);
        assertThat(store.find(consumer.key("order1_paid"))).get().extracting(r -> r.status()).isEqualTo(RecordStatus.COMPLETED);
        assertThat(consumer.key("order1_paid").scope()).isEqualTo("consumer:mailer");

        now.set(now.get().plus(Duration.ofHours(1)).plusSeconds(1));
        assertThat(consumer.process(delivery("order1_paid"))).as("retention over").isEqualTo(Delivery.PROCESSED);
        assertThat(mails.get()).isEqualTo(2);
        assertThat(consumer.stats()).isEqualTo(new ConsumerStats(2, 1, 0, 0, 0));
    }

    @Test
    void aFailureReleasesTheKeySoALaterDeliveryRunsIt() {
        AtomicInteger calls = new AtomicInteger();
        StoreIdempotentConsumer consumer = new StoreIdempotentConsumer("mailer", store, m -> {
            if (calls.incrementAndGet() <= 3) {
                throw new IllegalStateException("smtp down");
            }
        }, config);

        assertThat(consumer.process(delivery("m1"))).isEqualTo(Delivery.deadLetter("failed 3 attempts: IllegalStateException: smtp down"));
        assertThat(store.find(consumer.key("m1"))).as("released").isEmpty();
        assertThat(consumer.process(delivery("m1"))).isEqualTo(Delivery.PROCESSED);
        assertThat(calls.get()).isEqualTo(4);
    }

    @Test
    void aPermanentFailureDeadLettersAtOnceAndReleasesTheKey() {
        AtomicInteger calls = new AtomicInteger();
        StoreIdempotentConsumer consumer = new StoreIdempotentConsumer("mailer", store, m -> {
            calls.incrementAndGet();
            throw new PermanentMessageFailure("no such address");
        }, config);

        assertThat(consumer.process(delivery("m1"))).isEqualTo(Delivery.deadLetter("no such address"));
        assertThat(calls.get()).isEqualTo(1);
        assertThat(store.find(consumer.key("m1"))).isEmpty();
    }

    @Test
    void aCrashAfterTheClaimHoldsTheMessageUntilTheLeaseEndsThenItRunsAgain() {
        AtomicInteger mails = new AtomicInteger();
        StoreIdempotentConsumer consumer = new StoreIdempotentConsumer("mailer", store, m -> mails.incrementAndGet(), config);
        // a delivery that claimed the key and crashed (before or after its effect: the store cannot tell)
        store.claim(consumer.key("m1"), io.onlyonce.Fingerprint.of("onlyonce-message"), Duration.ofSeconds(30));

        Delivery held = consumer.process(delivery("m1"));
        assertThat(held.kind()).isEqualTo(Delivery.Kind.RETRY);
        assertThat(((Delivery.Retry) held).reason()).startsWith("in progress in another delivery");
        assertThat(mails.get()).isZero();

        now.set(now.get().plusSeconds(31));
        assertThat(consumer.process(delivery("m1"))).as("the weaker guarantee: it runs again").isEqualTo(Delivery.PROCESSED);
        assertThat(mails.get()).isEqualTo(1);
    }

    @Test
    void aMissingIdIsDeadLettered() {
        StoreIdempotentConsumer consumer = new StoreIdempotentConsumer("mailer", store, m -> {
            throw new AssertionError("never called");
        }, config);

        assertThat(consumer.process(delivery(null))).isEqualTo(Delivery.deadLetter("missing message id"));
        assertThat(consumer.process(delivery("bad id")).kind()).isEqualTo(Delivery.Kind.DEAD_LETTER);
    }
}
