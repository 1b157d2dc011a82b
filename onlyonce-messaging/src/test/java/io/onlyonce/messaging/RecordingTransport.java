package io.onlyonce.messaging;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A transport for tests: counts and keeps every publish, and answers each as told: confirm at once,
 * hold the future for the test to complete, or fail.
 */
final class RecordingTransport implements MessageTransport {

    private final Map<String, AtomicInteger> publishes = new ConcurrentHashMap<>();
    private final List<OutboxMessage> published = new ArrayList<>();
    private final LinkedBlockingQueue<Held> held = new LinkedBlockingQueue<>();
    private volatile Function<OutboxMessage, CompletableFuture<Void>> answer;

    private RecordingTransport(Function<OutboxMessage, CompletableFuture<Void>> answer) {
        this.answer = answer;
    }

    /** Confirms every message at once. */
    static RecordingTransport confirming() {
        return new RecordingTransport(message -> CompletableFuture.completedFuture(null));
    }

    /** Holds every future until the test completes it through {@link #takeHeld()}. */
    static RecordingTransport holding() {
        RecordingTransport transport = new RecordingTransport(null);
        transport.hold();
        return transport;
    }

    /** Answers through {@code answer}. */
    static RecordingTransport answering(Function<OutboxMessage, CompletableFuture<Void>> answer) {
        return new RecordingTransport(answer);
    }

    void confirm() {
        answer = message -> CompletableFuture.completedFuture(null);
    }

    void hold() {
        answer = message -> {
            CompletableFuture<Void> future = new CompletableFuture<>();
            held.add(new Held(message, future));
            return future;
        };
    }

    void failWith(Function<OutboxMessage, Throwable> failure) {
        answer = message -> CompletableFuture.failedFuture(failure.apply(message));
    }

    void answer(Function<OutboxMessage, CompletableFuture<Void>> newAnswer) {
        answer = newAnswer;
    }

    @Override
    public CompletableFuture<Void> publish(OutboxMessage message) {
        publishes.computeIfAbsent(message.id(), id -> new AtomicInteger()).incrementAndGet();
        synchronized (published) {
            published.add(message);
        }
        return answer.apply(message);
    }

    /** The next held publish, waiting for it at most 30 s. */
    Held takeHeld() throws InterruptedException {
        Held next = held.poll(30, java.util.concurrent.TimeUnit.SECONDS);
        if (next == null) {
            throw new AssertionError("no publish was held within 30 s");
        }
        return next;
    }

    int heldCount() {
        return held.size();
    }

    /** How often {@code id} was published. */
    int publishes(String id) {
        AtomicInteger count = publishes.get(id);
        return count == null ? 0 : count.get();
    }

    /** Publish counts per id. */
    Map<String, Integer> publishCounts() {
        Map<String, Integer> counts = new java.util.HashMap<>();
        publishes.forEach((id, count) -> counts.put(id, count.get()));
        return counts;
    }

    List<OutboxMessage> published() {
        synchronized (published) {
            return List.copyOf(published);
        }
    }

    record Held(OutboxMessage message, CompletableFuture<Void> future) {
    }
}
