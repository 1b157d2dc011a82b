package io.onlyonce.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.onlyonce.StoreUnavailableException;
import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.messaging.ScratchDatabase.PoolMode;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The relay: claim, publish, confirm, backoff, FAILED, resubmit, sweep, fencing, purge, concurrency. */
abstract class RelaySuite {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final AbstractMessagingTest t;

    RelaySuite(AbstractMessagingTest test) {
        this.t = test;
    }

    /** Quick backoff and a lease the tests can wait out. */
    private static RelayConfig.Builder quick() {
        return RelayConfig.custom().lease(Duration.ofSeconds(20)).publishTimeout(Duration.ofSeconds(10))
                .initialBackoff(Duration.ofMillis(20)).maxBackoff(Duration.ofMillis(60)).pollInterval(Duration.ofMillis(50));
    }

    @Test
    void aMessageIsSuccessOnlyOnceTheTransportConfirmedIt() throws Exception {
        String id = AbstractMessagingTest.uniqueId("paid");
        t.recordCommitted(AbstractMessagingTest.message(id));
        RecordingTransport transport = RecordingTransport.holding();
        RecordingListener listener = new RecordingListener();
        OutboxRelay relay = new OutboxRelay(t.dataSource(), t.dialect(), transport, quick().build(), listener);
        ExecutorService poller = Executors.newSingleThreadExecutor();
        try {
            long before = t.serverNow();
            Future<Integer> poll = poller.submit(relay::pollOnce);
            RecordingTransport.Held held = transport.takeHeld();
            long after = t.serverNow();

            AbstractMessagingTest.Row sending = t.row(id);
            assertThat(sending.status()).isEqualTo("SENDING");
            assertThat(sending.attempts()).isEqualTo(1);
            assertThat(sending.sendingOwner()).hasSize(22);
            assertThat(sending.sendingSinceMs()).isBetween(before, after);
            assertThat(sending.leaseUntilMs()).as("the end of the lease").isEqualTo(sending.sendingSinceMs() + 20_000);
            assertThat(sending.nextAttemptAtMs()).as("the claim leaves the indexed due time alone")
                    .isLessThanOrEqualTo(sending.sendingSinceMs());
            assertThat(sending.sentAtMs()).isNull();
            assertThat(listener.sent).isEmpty();

            held.future().complete(null);
            assertThat(poll.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        } finally {
            poller.shutdownNow();
        }
        AbstractMessagingTest.Row sent = t.row(id);
        assertThat(sent.status()).isEqualTo("SUCCESS");
        assertThat(sent.sentAtMs()).isNotNull().isGreaterThanOrEqualTo(sent.sendingSinceMs());
        assertThat(sent.nextAttemptAtMs()).isNull();
        assertThat(sent.attempts()).isEqualTo(1);
        assertThat(listener.sent).extracting(OutboxMessage::id).containsExactly(id);
        assertThat(relay.stats()).isEqualTo(new RelayStats(1, 1, 1, 0, 0, 0));
        assertThat(relay.pollOnce()).as("nothing left").isZero();
        assertThat(transport.publishes(id)).isEqualTo(1);
    }

    @Test
    void aNackBacksOffThenFailsAfterMaxAttemptsAndResubmitSendsIt() throws Exception {
        String id = AbstractMessagingTest.uniqueId("paid");
        t.recordCommitted(AbstractMessagingTest.message(id));
        RecordingTransport transport = RecordingTransport.confirming();
        transport.failWith(message -> new IllegalStateException("nack from broker"));
        RecordingListener listener = new RecordingListener();
        OutboxRelay relay = new OutboxRelay(t.dataSource(), t.dialect(), transport, quick().maxAttempts(3).build(), listener);

        long before = t.serverNow();
        assertThat(relay.pollOnce()).isEqualTo(1);
        long after = t.serverNow();
        AbstractMessagingTest.Row retry = t.row(id);
        assertThat(retry.status()).isEqualTo("PREPARED");
        assertThat(retry.attempts()).isEqualTo(1);
        assertThat(retry.lastError()).isEqualTo("IllegalStateException: nack from broker");
        assertThat(retry.nextAttemptAtMs()).as("due again after the backoff").isBetween(before + 1, after + 60);
        assertThat(listener.retries).hasSize(1);
        assertThat(listener.retries.get(0).attempt()).isEqualTo(1);
        assertThat(listener.retries.get(0).nextAttemptIn()).isBetween(Duration.ofMillis(1), Duration.ofMillis(60));

        await().atMost(PATIENCE).until(() -> {
            relay.pollOnce();
            return t.row(id).status().equals("FAILED");
        });
        AbstractMessagingTest.Row failed = t.row(id);
        assertThat(failed.attempts()).isEqualTo(3);
        assertThat(failed.nextAttemptAtMs()).isNull();
        assertThat(failed.lastError()).isEqualTo("IllegalStateException: nack from broker");
        assertThat(transport.publishes(id)).isEqualTo(3);
        assertThat(listener.retries).extracting(RecordingListener.Retry::attempt).containsExactly(1, 2);
        assertThat(listener.failed).hasSize(1);
        assertThat(listener.failed.get(0).attempts()).isEqualTo(3);
        assertThat(listener.failed.get(0).message().id()).isEqualTo(id);
        assertThat(listener.failed.get(0).error()).hasMessage("nack from broker");
        assertThat(relay.stats().failed()).isEqualTo(1);
        assertThat(relay.pollOnce()).as("a FAILED row is never claimed").isZero();
        assertThat(relay.failedMessages(10)).extracting(OutboxEntry::id, OutboxEntry::status, OutboxEntry::attempts)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(id, MessageStatus.FAILED, 3));
        assertThat(relay.countByStatus()).containsEntry(MessageStatus.FAILED, 1L).containsEntry(MessageStatus.SUCCESS, 0L);

        transport.confirm();
        assertThat(relay.resubmit(id)).isTrue();
        AbstractMessagingTest.Row resubmitted = t.row(id);
        assertThat(resubmitted.status()).isEqualTo("PREPARED");
        assertThat(resubmitted.attempts()).isZero();
        assertThat(relay.resubmit(id)).as("only a FAILED row is resubmitted").isFalse();
        assertThat(relay.pollOnce()).isEqualTo(1);
        assertThat(t.row(id).status()).isEqualTo("SUCCESS");
        assertThat(t.row(id).attempts()).isEqualTo(1);
        assertThat(relay.resubmit(id)).isFalse();
        assertThat(relay.resubmit("no-such-message")).isFalse();
    }

    @Test
    void theBacklogCountsWaitingAndFailedRowsPerDestinationAndAgesTheOldest() throws Exception {
        String exchange = AbstractMessagingTest.uniqueId("backlog");
        String first = AbstractMessagingTest.uniqueId("a");
        String second = AbstractMessagingTest.uniqueId("b");
        String doomed = AbstractMessagingTest.uniqueId("c");
        t.recordCommitted(new OutboxMessage(first, exchange, "one", "{}", Map.of()));
        Thread.sleep(50);
        t.recordCommitted(new OutboxMessage(second, exchange, "one", "{}", Map.of()),
                new OutboxMessage(doomed, exchange, "two", "{}", Map.of()));
        long recordedAt = t.row(first).createdAtMs();
        RecordingTransport transport = RecordingTransport.confirming();
        transport.failWith(message -> new IllegalStateException("nack"));
        OutboxRelay relay = new OutboxRelay(t.dataSource(), t.dialect(), transport, quick().maxAttempts(1).build());

        long before = t.serverNow();
        List<OutboxBacklog> waiting = relay.backlog(Duration.ofSeconds(5)).stream()
                .filter(b -> b.exchange().equals(exchange)).toList();
        long after = t.serverNow();
        assertThat(waiting).extracting(OutboxBacklog::routingKey, OutboxBacklog::waiting, OutboxBacklog::failed)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("one", 2L, 0L),
                        org.assertj.core.groups.Tuple.tuple("two", 1L, 0L));
        assertThat(waiting.stream().filter(b -> b.routingKey().equals("one")).findFirst().orElseThrow()
                .oldestWaitingAgeMillis()).as("the age of the first row, on the server's clock")
                .isBetween(before - recordedAt, after - recordedAt);

        await().atMost(PATIENCE).until(() -> {
            relay.pollOnce();
            return t.row(first).status().equals("FAILED") && t.row(second).status().equals("FAILED")
                    && t.row(doomed).status().equals("FAILED");
        });
        relay.resubmit(second);
        assertThat(relay.backlog(Duration.ofSeconds(5)).stream().filter(b -> b.exchange().equals(exchange)).toList())
                .extracting(OutboxBacklog::routingKey, OutboxBacklog::waiting, OutboxBacklog::failed)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("one", 1L, 1L),
                        org.assertj.core.groups.Tuple.tuple("two", 0L, 1L));
    }

    @Test
    void anUnroutableMessageIsAFailedAttemptNotASuccess() throws Exception {
        String id = AbstractMessagingTest.uniqueId("paid");
        t.recordCommitted(AbstractMessagingTest.message(id));
        try (InProcessBroker broker = new InProcessBroker()) {
            broker.bind(AbstractMessagingTest.EXCHANGE, "another.key", "q");
            OutboxRelay relay = new OutboxRelay(t.dataSource(), t.dialect(), broker, quick().build());
            relay.pollOnce();
        }
        AbstractMessagingTest.Row row = t.row(id);
        assertThat(row.status()).isEqualTo("PREPARED");
        assertThat(row.attempts()).isEqualTo(1);
        assertThat(row.lastError()).startsWith("UnroutableMessageException: no queue is bound to exchange 'shop'");
    }

    @Test
    void noConfirmWithinThePublishTimeoutAndATransportThatThrowsAreFailedAttempts() throws Exception {
        String silent = AbstractMessagingTest.uniqueId("silent");
        String throwing = AbstractMessagingTest.uniqueId("throwing");
        t.recordCommitted(AbstractMessagingTest.message(silent), AbstractMessagingTest.message(throwing));
        RecordingTransport transport = RecordingTransport.answering(message -> {
            if (message.id().equals(throwing)) {
                throw new IllegalArgumentException("transport blew up\nwith a second line");
            }
            return new CompletableFuture<>();
        });
        OutboxRelay relay = new OutboxRelay(t.dataSource(), t.dialect(), transport,
                quick().publishTimeout(Duration.ofMillis(200)).build());

        assertThat(relay.pollOnce()).isEqualTo(2);

        assertThat(t.row(silent).status()).isEqualTo("PREPARED");
        assertThat(t.row(silent).lastError()).isEqualTo("TimeoutException: no confirm within PT0.2S");
        assertThat(t.row(throwing).status()).isEqualTo("PREPARED");
        assertThat(t.row(throwing).lastError()).isEqualTo("IllegalArgumentException: transport blew up with a second line");
        assertThat(relay.stats().retried()).isEqualTo(2);
    }

    @Test
    void aClaimedBatchGoesToTheTransportInOneCallAndABatchItRefusesIsAFailedAttemptOfEveryRow() throws Exception {
        String first = AbstractMessagingTest.uniqueId("batch");
        String second = AbstractMessagingTest.uniqueId("batch");
        String third = AbstractMessagingTest.uniqueId("batch");
        t.recordCommitted(AbstractMessagingTest.message(first), AbstractMessagingTest.message(second),
                AbstractMessagingTest.message(third));
        List<List<String>> batches = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicBoolean refuse = new java.util.concurrent.atomic.AtomicBoolean(true);
        MessageTransport batching = new MessageTransport() {
            @Override
            public CompletableFuture<Void> publish(OutboxMessage message) {
                throw new AssertionError("the relay hands batches to publishAll");
            }

            @Override
            public List<CompletableFuture<Void>> publishAll(List<OutboxMessage> messages) {
                batches.add(messages.stream().map(OutboxMessage::id).toList());
                if (refuse.get()) {
                    throw new IllegalStateException("producer closed");
                }
                return messages.stream().map(message -> CompletableFuture.<Void>completedFuture(null)).toList();
            }
        };
        OutboxRelay relay = new OutboxRelay(t.dataSource(), t.dialect(), batching, quick().build());

        assertThat(relay.pollOnce()).isEqualTo(3);
        assertThat(batches).hasSize(1);
        assertThat(batches.get(0)).containsExactlyInAnyOrder(first, second, third);
        for (String id : List.of(first, second, third)) {
            assertThat(t.row(id).status()).isEqualTo("PREPARED");
            assertThat(t.row(id).lastError()).isEqualTo("IllegalStateException: producer closed");
        }

        refuse.set(false);
        Thread.sleep(200); // the quick backoff
        assertThat(relay.pollOnce()).isEqualTo(3);
        assertThat(batches).hasSize(2);
        for (String id : List.of(first, second, third)) {
            assertThat(t.row(id).status()).isEqualTo("SUCCESS");
        }
    }

    @Test
    void aRelayThatDiedBetweenPublishAndMarkIsSweptAfterItsLeaseAndTheConsumerAppliesTheEffectOnce() throws Exception {
        String id = AbstractMessagingTest.uniqueId("stock");
        t.recordCommitted(AbstractMessagingTest.message(id));
        IdempotentConsumer consumer = new IdempotentConsumer("stock", t.dataSource(), t.dialect(),
                (message, connection) -> AbstractMessagingTest.insertEffect(connection, "stock", message), ConsumerConfig.ofDefaults());
        try (InProcessBroker broker = new InProcessBroker()) {
            broker.bind(AbstractMessagingTest.EXCHANGE, AbstractMessagingTest.ROUTING_KEY, "stock");
            broker.consume("stock", consumer);
            // relay A loses its database right after the broker confirmed: it cannot mark the row
            SwitchableDataSource databaseOfA = new SwitchableDataSource(t.dataSource());
            RecordingTransport transportOfA = RecordingTransport.answering(message ->
                    broker.publish(message).thenRun(databaseOfA::down));
            OutboxRelay relayA = new OutboxRelay(databaseOfA, t.dialect(), transportOfA,
                    quick().lease(Duration.ofSeconds(1)).publishTimeout(Duration.ofMillis(900)).build());

            assertThat(relayA.pollOnce()).isEqualTo(1);

            AbstractMessagingTest.Row stuck = t.row(id);
            assertThat(stuck.status()).as("published and consumed, but never marked").isEqualTo("SENDING");
            assertThat(t.effects(id)).isEqualTo(1);

            RecordingTransport transportOfB = RecordingTransport.answering(broker::publish);
            OutboxRelay relayB = new OutboxRelay(t.database().secondDataSource(), t.dialect(), transportOfB, quick().build());
            assertThat(relayB.pollOnce()).as("the lease of A has not passed").isZero();
            await().atMost(PATIENCE).pollInterval(Duration.ofMillis(100)).until(() -> relayB.pollOnce() == 1);

            AbstractMessagingTest.Row swept = t.row(id);
            assertThat(swept.status()).isEqualTo("SUCCESS");
            assertThat(swept.attempts()).isEqualTo(2);
            assertThat(swept.sendingOwner()).isNotEqualTo(stuck.sendingOwner());
            assertThat(transportOfA.publishes(id) + transportOfB.publishes(id)).isEqualTo(2);
            assertThat(t.effects(id)).as("the inbox dropped the re-send").isEqualTo(1);
            assertThat(t.inboxRows()).isEqualTo(1);
            assertThat(consumer.stats()).isEqualTo(new ConsumerStats(1, 1, 0, 0, 0));
        }
    }

    @Test
    void aClaimThatLostItsRowCannotMarkIt() throws Exception {
        String id = AbstractMessagingTest.uniqueId("fenced");
        t.recordCommitted(AbstractMessagingTest.message(id));
        RecordingTransport transportOfA = RecordingTransport.holding();
        RecordingTransport transportOfB = RecordingTransport.holding();
        OutboxRelay relayA = new OutboxRelay(t.dataSource(), t.dialect(), transportOfA, quick().build());
        OutboxRelay relayB = new OutboxRelay(t.dataSource(), t.dialect(), transportOfB, quick().build());
        ExecutorService pollers = Executors.newFixedThreadPool(2);
        try {
            Future<Integer> pollA = pollers.submit(relayA::pollOnce);
            RecordingTransport.Held heldA = transportOfA.takeHeld();
            String ownerA = t.row(id).sendingOwner();
            // A's lease passes (the server's time moves past it) while its confirm is still out
            t.database().update("UPDATE " + MessagingSchema.MESSAGE_LOG_TABLE
                    + " SET lease_until_ms = lease_until_ms - 3600000 WHERE id = ?", id);
            Future<Integer> pollB = pollers.submit(relayB::pollOnce);
            RecordingTransport.Held heldB = transportOfB.takeHeld();
            String ownerB = t.row(id).sendingOwner();
            assertThat(ownerB).isNotEqualTo(ownerA);

            heldA.future().completeExceptionally(new IllegalStateException("late nack"));
            assertThat(pollA.get(10, TimeUnit.SECONDS)).isEqualTo(1);
            AbstractMessagingTest.Row afterA = t.row(id);
            assertThat(afterA.status()).as("A's late answer changed nothing").isEqualTo("SENDING");
            assertThat(afterA.sendingOwner()).isEqualTo(ownerB);
            assertThat(afterA.lastError()).isNull();
            assertThat(afterA.attempts()).isEqualTo(2);
            assertThat(relayA.stats().retried()).isZero();

            heldB.future().complete(null);
            assertThat(pollB.get(10, TimeUnit.SECONDS)).isEqualTo(1);
            assertThat(t.row(id).status()).isEqualTo("SUCCESS");
        } finally {
            pollers.shutdownNow();
        }
    }

    @Test
    void aSweptRowWithNoAttemptsLeftIsFailedWithoutPublishing() throws Exception {
        String id = AbstractMessagingTest.uniqueId("exhausted");
        t.recordCommitted(AbstractMessagingTest.message(id));
        t.database().update("UPDATE " + MessagingSchema.MESSAGE_LOG_TABLE + " SET status = 'SENDING', attempts = 3,"
                + " sending_owner = 'a-relay-that-died-xxxxx', lease_until_ms = next_attempt_at_ms - 1000 WHERE id = ?", id);
        RecordingTransport transport = RecordingTransport.confirming();
        RecordingListener listener = new RecordingListener();
        OutboxRelay relay = new OutboxRelay(t.dataSource(), t.dialect(), transport, quick().maxAttempts(3).build(), listener);

        assertThat(relay.pollOnce()).isEqualTo(1);

        AbstractMessagingTest.Row row = t.row(id);
        assertThat(row.status()).isEqualTo("FAILED");
        assertThat(row.lastError()).contains("lease of attempt 3 passed");
        assertThat(transport.publishes(id)).isZero();
        assertThat(listener.failed).extracting(RecordingListener.Failed::attempts).containsExactly(3);
    }

    @Test
    void aStartedRelayPublishesTheNextBatchWhileTheBrokerConfirmsOneUpToItsPipelineDepth() throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ids.add(AbstractMessagingTest.uniqueId("pipelined"));
            t.recordCommitted(AbstractMessagingTest.message(ids.get(i)));
        }
        RecordingTransport transport = RecordingTransport.holding();
        OutboxRelay relay = new OutboxRelay(t.dataSource(), t.dialect(), transport,
                quick().batchSize(1).pipelineDepth(2).pollInterval(Duration.ofHours(1)).build());
        relay.start();
        try {
            RecordingTransport.Held first = transport.takeHeld();
            RecordingTransport.Held second = transport.takeHeld();
            assertThat(List.of(first.message().id(), second.message().id())).doesNotHaveDuplicates();
            Thread.sleep(300);
            assertThat(transport.published()).as("two batches in flight, no third").hasSize(2);
            assertThat(statuses(ids)).containsOnlyKeys("SENDING", "PREPARED").containsEntry("SENDING", 2L);

            first.future().complete(null);
            await().atMost(PATIENCE).until(() -> t.row(first.message().id()).status().equals("SUCCESS"));
            RecordingTransport.Held third = transport.takeHeld();
            assertThat(t.row(second.message().id()).status()).isEqualTo("SENDING");
            second.future().complete(null);
            third.future().complete(null);
            transport.takeHeld().future().complete(null);
            await().atMost(PATIENCE).until(() -> statuses(ids).equals(Map.of("SUCCESS", 4L)));
            assertThat(transport.publishCounts()).containsOnlyKeys(ids).allSatisfy((id, count) -> assertThat(count).isOne());
        } finally {
            relay.stop();
        }
    }

    @Test
    void aRelayOfPipelineDepthOneClaimsOnlyOnceItsBatchIsMarked() throws Exception {
        String a = AbstractMessagingTest.uniqueId("serial");
        String b = AbstractMessagingTest.uniqueId("serial");
        t.recordCommitted(AbstractMessagingTest.message(a));
        t.recordCommitted(AbstractMessagingTest.message(b));
        RecordingTransport transport = RecordingTransport.holding();
        OutboxRelay relay = new OutboxRelay(t.dataSource(), t.dialect(), transport,
                quick().batchSize(1).pipelineDepth(1).pollInterval(Duration.ofHours(1)).build());
        relay.start();
        try {
            RecordingTransport.Held first = transport.takeHeld();
            Thread.sleep(300);
            assertThat(transport.published()).hasSize(1);
            first.future().complete(null);
            transport.takeHeld().future().complete(null);
            await().atMost(PATIENCE).until(() -> statuses(List.of(a, b)).equals(Map.of("SUCCESS", 2L)));
        } finally {
            relay.stop();
        }
    }

    @Test
    void aRelayThatDeletesSentRowsDeletesOnlyTheConfirmedOnesItStillHolds() throws Exception {
        String sent = AbstractMessagingTest.uniqueId("deleted");
        String nacked = AbstractMessagingTest.uniqueId("kept");
        String lost = AbstractMessagingTest.uniqueId("lost");
        for (String id : List.of(sent, nacked, lost)) {
            t.recordCommitted(AbstractMessagingTest.message(id));
        }
        RecordingListener listener = new RecordingListener();
        RecordingTransport transport = RecordingTransport.answering(message -> {
            if (message.id().equals(nacked)) {
                return CompletableFuture.failedFuture(new IllegalStateException("nack"));
            }
            if (message.id().equals(lost)) {
                try {
                    // another relay took this row meanwhile: the claim's fencing token no longer holds it
                    t.database().update("UPDATE " + MessagingSchema.MESSAGE_LOG_TABLE
                            + " SET sending_owner = 'another-relay-xxxxxxxxxxxxxxxx' WHERE id = ?", lost);
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException(e);
                }
            }
            return CompletableFuture.completedFuture(null);
        });
        OutboxRelay relay = new OutboxRelay(t.dataSource(), t.dialect(), transport, quick().deleteSent(true).build(), listener);

        assertThat(relay.pollOnce()).isEqualTo(3);

        assertThat(relay.find(sent)).isEmpty();
        assertThat(t.row(nacked).status()).isEqualTo("PREPARED");
        assertThat(t.row(lost).status()).as("not the claim's to delete").isEqualTo("SENDING");
        assertThat(listener.sent).extracting(OutboxMessage::id).contains(sent).doesNotContain(nacked);
        assertThat(relay.countByStatus()).containsEntry(MessageStatus.SUCCESS, 0L);
    }

    @Test
    void aRowClaimedBeforeTheLeaseColumnExistedIsSweptOnceTheLeaseInItsDueTimePassed() throws Exception {
        String passed = AbstractMessagingTest.uniqueId("v1-passed");
        String running = AbstractMessagingTest.uniqueId("v1-running");
        t.recordCommitted(AbstractMessagingTest.message(passed));
        t.recordCommitted(AbstractMessagingTest.message(running));
        // what a relay of schema version 1 left: SENDING, its lease end in next_attempt_at_ms, no lease_until_ms
        t.database().update("UPDATE " + MessagingSchema.MESSAGE_LOG_TABLE + " SET status = 'SENDING', attempts = 1,"
                + " sending_owner = 'a-version-1-relay-xxxxxxxx', lease_until_ms = NULL,"
                + " next_attempt_at_ms = next_attempt_at_ms - 1000 WHERE id = ?", passed);
        t.database().update("UPDATE " + MessagingSchema.MESSAGE_LOG_TABLE + " SET status = 'SENDING', attempts = 1,"
                + " sending_owner = 'a-version-1-relay-xxxxxxxx', lease_until_ms = NULL,"
                + " next_attempt_at_ms = next_attempt_at_ms + 3600000 WHERE id = ?", running);
        RecordingTransport transport = RecordingTransport.confirming();
        OutboxRelay relay = new OutboxRelay(t.dataSource(), t.dialect(), transport, quick().build());

        assertThat(relay.pollOnce()).isEqualTo(1);

        assertThat(t.row(passed).status()).isEqualTo("SUCCESS");
        assertThat(t.row(passed).attempts()).isEqualTo(2);
        assertThat(t.row(running).status()).as("its lease still runs").isEqualTo("SENDING");
        assertThat(transport.publishes(running)).isZero();
    }

    @Test
    void aPollInterruptedWhileItsConfirmsAreOutMarksNoneOfThemSent() throws Exception {
        String a = AbstractMessagingTest.uniqueId("interrupted");
        String b = AbstractMessagingTest.uniqueId("interrupted");
        t.recordCommitted(AbstractMessagingTest.message(a));
        t.recordCommitted(AbstractMessagingTest.message(b));
        RecordingTransport transport = RecordingTransport.holding();
        OutboxRelay relay = new OutboxRelay(t.dataSource(), t.dialect(), transport, quick().build());
        ExecutorService poller = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> poll = poller.submit(relay::pollOnce);
            transport.takeHeld();
            transport.takeHeld();
            poller.shutdownNow(); // interrupts the poll while both confirms are out
            assertThat(poll.get(10, TimeUnit.SECONDS)).isEqualTo(2);
            assertThat(statuses(List.of(a, b))).isEqualTo(Map.of("PREPARED", 2L));
            assertThat(t.row(a).lastError()).contains("stopped waiting for the confirm");
            assertThat(t.row(b).lastError()).contains("stopped waiting for the confirm");
        } finally {
            poller.shutdownNow();
        }
    }

    /** How many of {@code ids} are in each status. */
    private Map<String, Long> statuses(List<String> ids) throws Exception {
        Map<String, Long> counts = new java.util.TreeMap<>();
        for (String id : ids) {
            counts.merge(t.row(id).status(), 1L, Long::sum);
        }
        return counts;
    }

    @Test
    void aStartedRelayPublishesAsSoonAsItIsWokenUp() throws Exception {
        RecordingTransport transport = RecordingTransport.confirming();
        OutboxRelay relay = new OutboxRelay(t.dataSource(), t.dialect(), transport,
                quick().pollInterval(Duration.ofHours(1)).build());
        relay.start();
        try {
            assertThat(relay.isRunning()).isTrue();
            await().atMost(PATIENCE).until(() -> relay.stats().polls() >= 1); // its first poll found nothing: it waits
            String id = AbstractMessagingTest.uniqueId("woken");
            t.recordCommitted(AbstractMessagingTest.message(id));
            relay.wakeUp();
            await().atMost(PATIENCE).until(() -> t.row(id).status().equals("SUCCESS"));
            assertThat(transport.publishes(id)).isEqualTo(1);
        } finally {
            relay.stop();
        }
        assertThat(relay.isRunning()).isFalse();
        String later = AbstractMessagingTest.uniqueId("later");
        t.recordCommitted(AbstractMessagingTest.message(later));
        relay.wakeUp();
        Thread.sleep(200);
        assertThat(t.row(later).status()).as("a stopped relay publishes nothing").isEqualTo("PREPARED");
        relay.start();
        try {
            await().atMost(PATIENCE).until(() -> t.row(later).status().equals("SUCCESS"));
        } finally {
            relay.close();
        }
    }

    @Test
    void purgeDeletesOnlySuccessRowsOlderThanTheRetentionOnTheServerClock() throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(AbstractMessagingTest.uniqueId("purge" + i));
        }
        t.recordCommitted(ids.stream().map(AbstractMessagingTest::message).toArray(OutboxMessage[]::new));
        new OutboxRelay(t.dataSource(), t.dialect(), RecordingTransport.confirming(), quick().build()).pollOnce();
        String table = MessagingSchema.MESSAGE_LOG_TABLE;
        for (String old : ids.subList(0, 3)) {
            t.database().update("UPDATE " + table + " SET sent_at_ms = sent_at_ms - 7200000 WHERE id = ?", old);
        }
        t.database().update("UPDATE " + table + " SET status = 'FAILED', sent_at_ms = NULL, next_attempt_at_ms = NULL,"
                + " created_at_ms = created_at_ms - 7200000 WHERE id = ?", ids.get(4));
        String pending = AbstractMessagingTest.uniqueId("pending");
        t.recordCommitted(AbstractMessagingTest.message(pending));
        OutboxRelay relay = new OutboxRelay(t.dataSource(), t.dialect(), RecordingTransport.holding(), quick().build());

        assertThat(relay.purgeSent(Duration.ofHours(1), 2)).isEqualTo(3);

        assertThat(t.database().query("SELECT id FROM " + table + " ORDER BY id", rs -> rs.getString(1)))
                .containsExactlyInAnyOrder(ids.get(3), ids.get(4), pending);
        assertThat(relay.purgeSent(Duration.ofHours(1), 2)).isZero();
        assertThat(relay.find(ids.get(3))).map(OutboxEntry::status).contains(MessageStatus.SUCCESS);
        assertThat(relay.find(ids.get(0))).isEqualTo(Optional.empty());
        assertThatThrownBy(() -> relay.purgeSent(Duration.ZERO, 2)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRelayOnAnUnreachableDatabaseFailsItsPollsNotItsMessages() throws Exception {
        Optional<DataSource> unreachable = t.database().mode() == PoolMode.AUTOCOMMIT
                ? t.database().unreachableDataSource() : Optional.empty();
        Assumptions.assumeTrue(unreachable.isPresent(), "a server database, once per server");
        RecordingListener listener = new RecordingListener();
        OutboxRelay relay = new OutboxRelay(unreachable.get(), t.dialect(), RecordingTransport.confirming(),
                quick().build(), listener);

        assertThatThrownBy(relay::pollOnce).isInstanceOf(StoreUnavailableException.class);
        relay.start();
        try {
            await().atMost(PATIENCE).until(() -> !listener.pollFailures.isEmpty());
        } finally {
            relay.stop();
        }
        assertThat(relay.stats().pollsFailed()).isPositive();
        assertThat(relay.stats().sent()).isZero();
    }

    @Test
    void twoRelaysOnTwoPoolsWithTwoThreadsEachPublishEveryRowExactlyOnce() throws Exception {
        int rows = 2_000;
        List<String> ids = new ArrayList<>();
        for (int chunk = 0; chunk < rows / 500; chunk++) {
            List<OutboxMessage> messages = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                String id = "m" + (chunk * 500 + i) + "_" + AbstractMessagingTest.uniqueId("x");
                ids.add(id);
                messages.add(AbstractMessagingTest.message(id));
            }
            t.recordCommitted(messages.toArray(OutboxMessage[]::new));
        }
        // a broker that takes a millisecond per confirm, as a real one does: one relay alone cannot
        // drain the table before the other's threads are scheduled on a busy machine
        RecordingTransport transport = RecordingTransport.answering(message -> {
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            return java.util.concurrent.CompletableFuture.completedFuture(null);
        });
        // no relay publishes anything until both have claimed a batch (up to a minute): the test
        // proves two relays share the table, not how a busy scheduler orders them. Claimed rows are
        // leased, so the waiting relay's batch is not claimed again by the other one
        CountDownLatch bothClaimed = new CountDownLatch(t.dialect() == JdbcDialect.H2 ? 0 : 2);
        // a lease longer than the wait, so a waiting batch is never taken over
        RelayConfig config = quick().batchSize(50).lease(Duration.ofMinutes(3)).build();
        OutboxRelay relayA = new OutboxRelay(t.dataSource(), t.dialect(), meetingFirst(transport, bothClaimed), config);
        OutboxRelay relayB = new OutboxRelay(t.database().secondDataSource(), t.dialect(),
                meetingFirst(transport, bothClaimed), config);
        // both pools connected and all four loops released together: otherwise one relay may claim
        // every row while the other pool still opens its first connection
        for (DataSource pool : List.of(t.dataSource(), t.database().secondDataSource())) {
            try (Connection warm = pool.getConnection()) {
                assertThat(warm.isValid(5)).isTrue();
            }
        }
        CountDownLatch start = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger claimedByAll = new java.util.concurrent.atomic.AtomicInteger();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        ExecutorService pollers = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> loops = new ArrayList<>();
            for (OutboxRelay relay : List.of(relayA, relayA, relayB, relayB)) {
                loops.add(pollers.submit(() -> {
                    start.await();
                    int claimed = 0;
                    // an empty poll does not end a loop: under MariaDB's SKIP LOCKED a claim can find
                    // nothing while another relay's claim holds the rows it scanned
                    while (claimedByAll.get() < rows && System.nanoTime() < deadline) {
                        int count = relay.pollOnce();
                        claimed += count;
                        if (claimedByAll.addAndGet(count) < rows && count == 0) {
                            Thread.sleep(5);
                        }
                    }
                    return claimed;
                }));
            }
            start.countDown();
            int claimed = 0;
            for (Future<Integer> loop : loops) {
                claimed += loop.get(150, TimeUnit.SECONDS);
            }
            assertThat(claimed).isEqualTo(rows);
            assertThat(relayA.pollOnce() + relayB.pollOnce()).as("nothing is left to claim").isZero();
        } finally {
            pollers.shutdownNow();
        }

        Map<String, Integer> counts = transport.publishCounts();
        assertThat(counts).hasSize(rows).containsOnlyKeys(ids);
        assertThat(counts.values()).containsOnly(1);
        assertThat(t.rowsWithStatus("SUCCESS")).isEqualTo(rows);
        assertThat(t.database().queryLong("SELECT MAX(attempts) FROM " + MessagingSchema.MESSAGE_LOG_TABLE)).isEqualTo(1);
        assertThat(relayA.stats().sent() + relayB.stats().sent()).isEqualTo(rows);
        if (t.dialect() != JdbcDialect.H2) {
            assertThat(relayA.stats().sent()).as("both relays worked").isPositive();
            assertThat(relayB.stats().sent()).as("both relays worked").isPositive();
        }
    }

    /**
     * Delegates to {@code transport}; its first publish counts {@code met} down, and every publish
     * waits (up to 30 s) until {@code met} reached zero.
     */
    private static MessageTransport meetingFirst(MessageTransport transport, CountDownLatch met) {
        java.util.concurrent.atomic.AtomicBoolean first = new java.util.concurrent.atomic.AtomicBoolean(true);
        return message -> {
            if (first.compareAndSet(true, false)) {
                met.countDown();
            }
            try {
                met.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return transport.publish(message);
        };
    }
}
