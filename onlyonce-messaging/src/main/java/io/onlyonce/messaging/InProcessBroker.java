package io.onlyonce.messaging;

import io.onlyonce.messaging.internal.Backoff;
import io.onlyonce.messaging.internal.ShortError;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * A message broker inside the JVM, for the embedded default and for tests: exchanges route to
 * named queues by exact {@code (exchange, routing key)} bindings, and each queue delivers to one
 * {@link MessageConsumer} on worker threads of its own.
 *
 * <pre>{@code
 * InProcessBroker broker = new InProcessBroker();
 * broker.bind("orders", "order.paid", "stock.order-paid");
 * broker.consume("stock.order-paid", new IdempotentConsumer("stock", dataSource, dialect, handler, config));
 * OutboxRelay relay = new OutboxRelay(dataSource, dialect, broker, RelayConfig.ofDefaults());
 * }</pre>
 *
 * <h2>Publish and "confirm"</h2>
 * {@link #publish} of a message that no binding routes fails with
 * {@link UnroutableMessageException}, as RabbitMQ's {@code mandatory} flag makes it. Otherwise the
 * message is put on every bound queue, and its future completes when every queue's consumer is done
 * with it: processed, dropped as a duplicate, or dead-lettered. That is the honest confirm of a broker
 * that keeps nothing on disk: until the consumer committed, the only durable copy is the outbox row,
 * which stays SENDING, so a JVM that dies before consumption leaves the row to the relay's sweep
 * after a restart. A slow consumer therefore slows the relay (its publish timeout counts the wait).
 *
 * <h2>Delivery</h2>
 * {@link Delivery#acknowledge() PROCESSED and DUPLICATE} end a delivery; DEAD_LETTER moves the
 * message to the queue's dead-letter list ({@link #deadLetters}, the most recent
 * {@value #MAX_DEAD_LETTERS} kept) with its reason; RETRY puts it back on the queue, flagged
 * redelivered, after an exponential backoff with jitter, capped. A consumer that throws is treated as
 * RETRY. Messages published before a queue has a consumer wait on the queue;
 * {@link #cancel(String)} stops a queue's consumer (after the message in hand) and keeps its
 * messages for the next {@link #consume}, as a consumer restart does. {@link #close()} fails every
 * message still waiting, so the relay publishes it again later.
 *
 * <p>Thread-safe.
 */
public final class InProcessBroker implements MessageTransport, AutoCloseable {

    /** How many dead letters each queue keeps, the most recent. */
    public static final int MAX_DEAD_LETTERS = 10_000;

    private static final System.Logger LOG = System.getLogger(InProcessBroker.class.getName());
    private static final long POLL_MILLIS = 50;

    private final Map<Binding, List<Queue>> bindings = new ConcurrentHashMap<>();
    private final Map<String, Queue> queues = new ConcurrentHashMap<>();
    private final Backoff redelivery;
    private final ScheduledExecutorService scheduler;
    private volatile boolean closed;

    /** A broker that redelivers RETRY results after 100 ms, growing to at most 5 s. */
    public InProcessBroker() {
        this(Duration.ofMillis(100), Duration.ofSeconds(5));
    }

    /**
     * A broker that redelivers RETRY results after {@code initialRedeliveryDelay}, doubling (with
     * jitter) up to {@code maxRedeliveryDelay}.
     */
    public InProcessBroker(Duration initialRedeliveryDelay, Duration maxRedeliveryDelay) {
        Backoff.check(initialRedeliveryDelay, 2.0, 0.5, maxRedeliveryDelay);
        this.redelivery = new Backoff(initialRedeliveryDelay, 2.0, 0.5, maxRedeliveryDelay);
        this.scheduler = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "onlyonce-broker-redelivery");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Routes messages published to {@code exchange} with {@code routingKey} to {@code queue},
     * creating the queue if needed. Binding twice changes nothing.
     *
     * @return this broker
     */
    public synchronized InProcessBroker bind(String exchange, String routingKey, String queue) {
        Objects.requireNonNull(exchange, "exchange");
        Objects.requireNonNull(routingKey, "routingKey");
        Queue target = queue(queue);
        bindings.compute(new Binding(exchange, routingKey), (key, bound) -> {
            List<Queue> list = bound == null ? new CopyOnWriteArrayList<>() : bound;
            if (!list.contains(target)) {
                list.add(target);
            }
            return list;
        });
        return this;
    }

    /** Delivers the messages of {@code queue} to {@code consumer}, on one worker thread. */
    public void consume(String queue, MessageConsumer consumer) {
        consume(queue, consumer, 1);
    }

    /**
     * Delivers the messages of {@code queue} to {@code consumer}, on {@code workers} threads (so one
     * message may be in the hands of one worker while its duplicate is in another's: the consumer's
     * inbox decides). Creates the queue if needed.
     *
     * @throws IllegalStateException when the queue has a consumer (cancel it first) or the broker is closed
     */
    public synchronized void consume(String queue, MessageConsumer consumer, int workers) {
        Objects.requireNonNull(consumer, "consumer");
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be at least 1");
        }
        if (closed) {
            throw new IllegalStateException("the broker is closed");
        }
        queue(queue).start(consumer, workers);
    }

    /**
     * Stops the consumer of {@code queue}: each worker finishes the message in its hands, then ends;
     * this method returns when they have. The queue keeps its messages. Does nothing without a consumer.
     */
    public void cancel(String queue) {
        Queue target = queues.get(queue);
        if (target != null) {
            target.stop();
        }
    }

    @Override
    public CompletableFuture<Void> publish(OutboxMessage message) {
        Objects.requireNonNull(message, "message");
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("the broker is closed"));
        }
        List<Queue> targets = bindings.get(new Binding(message.exchange(), message.routingKey()));
        if (targets == null || targets.isEmpty()) {
            return CompletableFuture.failedFuture(new UnroutableMessageException(message.exchange(), message.routingKey()));
        }
        Pending pending = new Pending(targets.size());
        InboundMessage inbound = new InboundMessage(message.id(), message.exchange(), message.routingKey(),
                message.payload(), message.headers(), false);
        for (Queue target : targets) {
            target.ready.addLast(new Envelope(inbound, pending, 0));
        }
        return pending.future.copy();
    }

    /** The names of the queues, in no particular order. */
    public Set<String> queues() {
        return Set.copyOf(queues.keySet());
    }

    /**
     * The messages waiting in {@code queue}: ready ones and those waiting for a redelivery (not the
     * ones in a worker's hands); 0 for an unknown queue.
     */
    public int depth(String queue) {
        Queue target = queues.get(queue);
        return target == null ? 0 : target.ready.size() + target.delayed.size();
    }

    /** The dead letters of {@code queue}, oldest first (the most recent {@value #MAX_DEAD_LETTERS}). */
    public List<DeadLetter> deadLetters(String queue) {
        Queue target = queues.get(queue);
        return target == null ? List.of() : List.copyOf(target.deadLetters);
    }

    /** How many messages {@code queue} has dead-lettered in all, also those no longer kept. */
    public long deadLetterCount(String queue) {
        Queue target = queues.get(queue);
        return target == null ? 0 : target.deadLettered.get();
    }

    /**
     * Stops every consumer, and fails the futures of the messages still waiting (the relay publishes
     * them again after a restart).
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        for (Queue queue : queues.values()) {
            queue.stop();
        }
        scheduler.shutdownNow();
        for (Queue queue : queues.values()) {
            queue.failWaiting();
        }
    }

    private Queue queue(String name) {
        Objects.requireNonNull(name, "queue");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a queue needs a name");
        }
        return queues.computeIfAbsent(name, Queue::new);
    }

    private record Binding(String exchange, String routingKey) {
    }

    /** One published message, done when every queue it went to is done with it. */
    private static final class Pending {
        final CompletableFuture<Void> future = new CompletableFuture<>();
        final AtomicInteger remaining;

        Pending(int queues) {
            remaining = new AtomicInteger(queues);
        }

        void done() {
            if (remaining.decrementAndGet() == 0) {
                future.complete(null);
            }
        }
    }

    private record Envelope(InboundMessage message, Pending pending, int redeliveries) {

        Envelope redelivered() {
            InboundMessage m = message;
            return new Envelope(new InboundMessage(m.id(), m.exchange(), m.routingKey(), m.payload(), m.headers(), true),
                    pending, redeliveries + 1);
        }

        // identity: an envelope waiting for redelivery is tracked in a set
        @Override
        public boolean equals(Object other) {
            return this == other;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(this);
        }
    }

    private final class Queue {
        final String name;
        final LinkedBlockingDeque<Envelope> ready = new LinkedBlockingDeque<>();
        final Set<Envelope> delayed = ConcurrentHashMap.newKeySet();
        final ConcurrentLinkedDeque<DeadLetter> deadLetters = new ConcurrentLinkedDeque<>();
        final AtomicLong deadLettered = new AtomicLong();
        final AtomicInteger keptDeadLetters = new AtomicInteger();
        private final List<Thread> workers = new ArrayList<>();
        private volatile @Nullable MessageConsumer consumer;

        Queue(String name) {
            this.name = name;
        }

        synchronized void start(MessageConsumer newConsumer, int count) {
            if (consumer != null) {
                throw new IllegalStateException("queue " + name + " has a consumer; cancel it first");
            }
            consumer = newConsumer;
            for (int i = 1; i <= count; i++) {
                Thread worker = new Thread(() -> work(newConsumer), "onlyonce-broker-" + name + "-" + i);
                worker.setDaemon(true);
                workers.add(worker);
                worker.start();
            }
        }

        void stop() {
            List<Thread> stopping;
            synchronized (this) {
                consumer = null;
                stopping = List.copyOf(workers);
                workers.clear();
            }
            boolean interrupted = false;
            for (Thread worker : stopping) {
                while (worker.isAlive()) {
                    try {
                        worker.join();
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        void failWaiting() {
            IllegalStateException closedBroker = new IllegalStateException("the broker closed before the message was consumed");
            List<Envelope> waiting = new ArrayList<>();
            ready.drainTo(waiting);
            waiting.addAll(delayed);
            delayed.clear();
            for (Envelope envelope : new LinkedHashSet<>(waiting)) {
                envelope.pending.future.completeExceptionally(closedBroker);
            }
        }

        private void work(MessageConsumer mine) {
            while (consumer == mine) {
                Envelope envelope;
                try {
                    envelope = ready.pollFirst(POLL_MILLIS, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    return;
                }
                if (envelope == null) {
                    continue;
                }
                if (consumer != mine) {
                    ready.addFirst(envelope); // cancelled while waiting: leave it to the next consumer
                    return;
                }
                deliver(mine, envelope);
            }
        }

        private void deliver(MessageConsumer mine, Envelope envelope) {
            Delivery delivery;
            try {
                delivery = mine.process(envelope.message);
                if (delivery == null) {
                    delivery = Delivery.retry("the consumer returned no result");
                }
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "consumer of queue " + name + " threw; redelivering", e);
                delivery = Delivery.retry(ShortError.of(e));
            }
            switch (delivery.kind()) {
                case PROCESSED, DUPLICATE -> envelope.pending.done();
                case DEAD_LETTER -> {
                    deadLetters.addLast(new DeadLetter(name, envelope.message, ((Delivery.DeadLetter) delivery).reason()));
                    deadLettered.incrementAndGet();
                    if (keptDeadLetters.incrementAndGet() > MAX_DEAD_LETTERS && deadLetters.pollFirst() != null) {
                        keptDeadLetters.decrementAndGet();
                    }
                    envelope.pending.done();
                }
                case RETRY -> redeliver(envelope.redelivered());
            }
        }

        private void redeliver(Envelope envelope) {
            if (closed) {
                envelope.pending.future.completeExceptionally(new IllegalStateException("the broker is closed"));
                return;
            }
            delayed.add(envelope);
            try {
                scheduler.schedule(() -> {
                    if (delayed.remove(envelope)) {
                        ready.addLast(envelope);
                    }
                }, redelivery.after(envelope.redeliveries).toMillis(), TimeUnit.MILLISECONDS);
            } catch (RuntimeException rejected) {
                if (delayed.remove(envelope)) {
                    envelope.pending.future.completeExceptionally(new IllegalStateException("the broker is closed"));
                }
            }
        }
    }

    /** The queues and how many messages wait in each. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("InProcessBroker[");
        for (Iterator<Queue> it = queues.values().iterator(); it.hasNext();) {
            Queue queue = it.next();
            text.append(queue.name).append('=').append(queue.ready.size() + queue.delayed.size());
            if (it.hasNext()) {
                text.append(", ");
            }
        }
        return text.append(']').toString();
    }
}
