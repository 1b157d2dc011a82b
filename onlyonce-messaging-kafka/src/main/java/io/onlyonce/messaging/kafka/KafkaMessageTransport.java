package io.onlyonce.messaging.kafka;

import io.onlyonce.messaging.MessageTransport;
import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.messaging.kafka.KafkaPublishException.Reason;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.jspecify.annotations.Nullable;

/**
 * The {@link MessageTransport} on Apache Kafka: each {@link OutboxMessage} becomes one record on an
 * idempotent producer ({@code acks=all}, {@code enable.idempotence=true}), and its future completes
 * normally only when the broker acknowledged the record (the send callback without an error).
 *
 * <p>On the wire: the topic is {@link OutboxMessage#exchange()}; the record key is the outbox
 * header {@link KafkaMessageHeaders#KEY} when the message has one (set it to the business id to keep
 * the messages of one entity on one partition, in order), else the message id; the headers are
 * {@link KafkaMessageHeaders#MESSAGE_ID} (the id), {@link KafkaMessageHeaders#MESSAGE_TYPE} (the
 * routing key), {@link KafkaMessageHeaders#CONTENT_TYPE} ({@code application/json}) and every header
 * of the outbox message (the {@code X-Request-ID} among them) as UTF-8, except the key header and
 * headers of those three names; the value is the UTF-8 payload.
 *
 * <p>{@link #publishAll} hands every record of the relay's batch to the producer and returns without
 * flushing: the producer sends them after its {@code linger.ms}, and the relay publishes its next
 * batch while the broker acknowledges this one.
 * A future fails with a {@link KafkaPublishException} whose {@link KafkaPublishException#reason()}
 * says why: {@code TOPIC_NOT_FOUND} for a topic that does not exist (the broker creates none
 * automatically, so this is Kafka's unroutable message), {@code TIMED_OUT} when the broker did not
 * acknowledge within the send timeout, {@code REJECTED} when it refused the record, {@code NOT_SENT}
 * when the producer did not take it. The waits of the producer ({@code max.block.ms},
 * {@code delivery.timeout.ms}) are bounded by the send timeout, so a call returns, and every future
 * completes, within about the send timeout.
 *
 * <p>Thread-safe: the relay's threads and instances may share one transport.
 */
public final class KafkaMessageTransport implements MessageTransport, AutoCloseable {

    /** The send timeout of {@link #create(Map)}: 10 seconds. */
    public static final Duration DEFAULT_SEND_TIMEOUT = Duration.ofSeconds(10);

    private static final long LOOKUP_MARGIN_MILLIS = 1_000;

    /**
     * How long a topic found missing is remembered: its messages fail at once meanwhile (the relay
     * retries them after its backoff), so that a message to a topic nobody created costs the other
     * messages of a batch the producer's metadata wait at most once in this time, not on every retry.
     * Only when the broker is evidently up (it acknowledged another record of the same batch): a
     * broker that cannot be reached also leaves a topic "not present in metadata", and once it is back
     * the messages go out at once.
     */
    static final Duration MISSING_TOPIC_MEMORY = Duration.ofSeconds(30);

    private final Producer<String, byte[]> producer;
    private final boolean ownsProducer;
    private final Duration sendTimeout;
    private final long sendTimeoutMillis;
    private @Nullable ExecutorService metadataLookups;
    /** Topic → {@code System.nanoTime()} until which it is taken to be missing. */
    private final Map<String, Long> missingUntil = new ConcurrentHashMap<>();
    /** {@code System.nanoTime()} of the last acknowledged record. */
    private final java.util.concurrent.atomic.AtomicLong lastAck = new java.util.concurrent.atomic.AtomicLong(
            System.nanoTime() - MISSING_TOPIC_MEMORY.toNanos() - 1);

    /**
     * A transport on the caller's producer, which {@link #close()} leaves open. Give it a producer
     * with {@code acks=all} and idempotence on, String keys and byte-array values, and a
     * {@code delivery.timeout.ms} and {@code max.block.ms} no longer than {@code sendTimeout}.
     *
     * @param producer the producer to send on
     * @param sendTimeout the longest wait for an acknowledgement
     * @throws IllegalArgumentException when the timeout is not positive
     */
    public KafkaMessageTransport(Producer<String, byte[]> producer, Duration sendTimeout) {
        this(producer, sendTimeout, false);
    }

    private KafkaMessageTransport(Producer<String, byte[]> producer, Duration sendTimeout, boolean ownsProducer) {
        this.producer = Objects.requireNonNull(producer, "producer");
        this.sendTimeoutMillis = ProducerSettings.positiveMillis(sendTimeout);
        this.sendTimeout = sendTimeout;
        this.ownsProducer = ownsProducer;
    }

    /**
     * A transport on a producer of its own with a send timeout of {@link #DEFAULT_SEND_TIMEOUT}.
     *
     * @param producerConfig the producer settings ({@code bootstrap.servers}, security, client id, ...)
     * @return the transport; {@link #close()} closes its producer
     * @throws IllegalArgumentException when the settings set {@code acks} to anything but {@code all}
     *     or {@code -1}, or {@code enable.idempotence} to false
     */
    public static KafkaMessageTransport create(Map<String, Object> producerConfig) {
        return create(producerConfig, DEFAULT_SEND_TIMEOUT);
    }

    /**
     * A transport on a producer of its own: the settings given, with {@code acks=all},
     * {@code enable.idempotence=true}, String and byte-array serializers, {@code max.block.ms} and
     * {@code delivery.timeout.ms} at most {@code sendTimeout} (smaller values set are kept;
     * {@code request.timeout.ms} is lowered to fit), and {@code linger.ms} 5 unless set.
     *
     * @param producerConfig the producer settings ({@code bootstrap.servers}, security, client id, ...)
     * @param sendTimeout the longest wait for an acknowledgement
     * @return the transport; {@link #close()} closes its producer
     * @throws IllegalArgumentException when the settings set {@code acks} to anything but {@code all}
     *     or {@code -1}, or {@code enable.idempotence} to false, or the timeout is not positive
     */
    public static KafkaMessageTransport create(Map<String, Object> producerConfig, Duration sendTimeout) {
        Map<String, Object> config = ProducerSettings.of(producerConfig, sendTimeout);
        return new KafkaMessageTransport(new KafkaProducer<>(config), sendTimeout, true);
    }

    /**
     * The send timeout.
     *
     * @return the longest wait for an acknowledgement
     */
    public Duration sendTimeout() {
        return sendTimeout;
    }

    @Override
    public CompletableFuture<Void> publish(OutboxMessage message) {
        return publishAll(List.of(message)).get(0);
    }

    /**
     * Hands a record per message to the producer, without waiting; see the class description.
     *
     * @param messages the relay's batch
     * @return one future per message, in order, completing on the broker's acknowledgement
     */
    @Override
    public List<CompletableFuture<Void>> publishAll(List<OutboxMessage> messages) {
        List<CompletableFuture<Void>> results = new ArrayList<>(messages.size());
        for (int i = 0; i < messages.size(); i++) {
            results.add(new CompletableFuture<>());
        }
        // grouped by topic (the order within a topic kept): the first send to a topic may wait for its
        // metadata, and a topic that does not exist must cost that wait once, not once per message;
        // with several topics their metadata is fetched at once first
        Map<String, List<Integer>> byTopic = new LinkedHashMap<>();
        for (int i = 0; i < messages.size(); i++) {
            byTopic.computeIfAbsent(messages.get(i).exchange(), topic -> new ArrayList<>()).add(i);
        }
        Set<String> missing = ConcurrentHashMap.newKeySet();
        long now = System.nanoTime();
        Set<String> toLookUp = new java.util.LinkedHashSet<>();
        for (String topic : byTopic.keySet()) {
            Long until = missingUntil.get(topic);
            if (until != null && until - now > 0) {
                missing.add(topic); // found missing a moment ago: fail its messages at once
            } else {
                missingUntil.remove(topic);
                toLookUp.add(topic);
            }
        }
        Map<String, KafkaPublishException> unavailable = toLookUp.size() > 1 ? lookUpTopics(toLookUp, messages)
                : new ConcurrentHashMap<>();
        boolean interrupted = false;
        for (Map.Entry<String, List<Integer>> group : byTopic.entrySet()) {
            String topic = group.getKey();
            for (int index : group.getValue()) {
                OutboxMessage message = messages.get(index);
                CompletableFuture<Void> result = results.get(index);
                KafkaPublishException lookup = unavailable.get(topic);
                if (lookup != null) {
                    result.completeExceptionally(new KafkaPublishException(lookup.reason(), message.id(), topic,
                            "message " + message.id() + " was not published: " + lookup.getMessage(), lookup.getCause()));
                } else if (missing.contains(topic)) {
                    result.completeExceptionally(new KafkaPublishException(Reason.TOPIC_NOT_FOUND, message.id(), topic,
                            "message " + message.id() + " was not published: topic '" + topic + "' not found "
                                    + "(topics are not created automatically)", null));
                } else {
                    interrupted |= send(message, result, missing);
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        List<CompletableFuture<Void>> bounded = new ArrayList<>(results.size());
        for (int i = 0; i < results.size(); i++) {
            bounded.add(bound(results.get(i), messages.get(i)));
        }
        // no flush: the producer sends after linger.ms, and the caller may hand over its next batch
        // meanwhile. Once every record of the batch is answered, the topics found missing are
        // remembered, and only then does each future complete: a batch sent after this one's futures
        // completed finds them remembered.
        CompletableFuture<Void> answered = CompletableFuture.allOf(bounded.toArray(CompletableFuture[]::new))
                .handle((ignored, error) -> {
                    if (lastAck.get() - now > 0) {
                        long remembered = System.nanoTime() + MISSING_TOPIC_MEMORY.toNanos();
                        for (String topic : missing) {
                            missingUntil.putIfAbsent(topic, remembered);
                        }
                        unavailable.forEach((topic, failure) -> {
                            if (failure.reason() == Reason.TOPIC_NOT_FOUND) {
                                missingUntil.putIfAbsent(topic, remembered);
                            }
                        });
                    }
                    return null;
                });
        List<CompletableFuture<Void>> out = new ArrayList<>(bounded.size());
        for (CompletableFuture<Void> future : bounded) {
            CompletableFuture<Void> after = new CompletableFuture<>();
            answered.whenComplete((ignored, none) -> future.whenComplete((value, error) -> {
                if (error == null) {
                    after.complete(null);
                } else {
                    after.completeExceptionally(error);
                }
            }));
            out.add(after);
        }
        return out;
    }

    /**
     * Fetches the metadata of every topic of a batch at once, so that a topic that does not exist
     * costs one wait of at most the send timeout for the whole batch, and the other topics' messages
     * are still sent; returns the failure of each topic that cannot be published to.
     */
    private Map<String, KafkaPublishException> lookUpTopics(Set<String> topics, List<OutboxMessage> messages) {
        // the producer gives up on a topic's metadata after max.block.ms (at most the send timeout) and
        // says so: a little longer, to hear it say so
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(sendTimeoutMillis + LOOKUP_MARGIN_MILLIS);
        Map<String, CompletableFuture<?>> lookups = new LinkedHashMap<>();
        for (String topic : topics) {
            lookups.put(topic, CompletableFuture.supplyAsync(() -> producer.partitionsFor(topic), metadata()));
        }
        Map<String, KafkaPublishException> unavailable = new ConcurrentHashMap<>();
        for (Map.Entry<String, CompletableFuture<?>> lookup : lookups.entrySet()) {
            String topic = lookup.getKey();
            try {
                lookup.getValue().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                unavailable.put(topic, new KafkaPublishException(Reason.TIMED_OUT, null, topic, "the metadata of topic '"
                        + topic + "' did not arrive within the send timeout of " + sendTimeoutMillis + " ms", null));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                unavailable.put(topic, new KafkaPublishException(Reason.NOT_SENT, null, topic,
                        "interrupted while fetching the metadata of topic '" + topic + "'", e));
            } catch (java.util.concurrent.ExecutionException e) {
                KafkaPublishException failure = Failures.of(e, null, topic, false);
                if (failure.reason() == Reason.TOPIC_NOT_FOUND) {
                    unavailable.put(topic, new KafkaPublishException(Reason.TOPIC_NOT_FOUND, null, topic, "topic '" + topic
                            + "' not found (" + e.getCause().getMessage() + "; topics are not created automatically)",
                            e.getCause()));
                }
                // otherwise: the sends report their own failures
            }
        }
        return unavailable;
    }

    private synchronized ExecutorService metadata() {
        if (metadataLookups == null) {
            AtomicInteger threads = new AtomicInteger();
            metadataLookups = Executors.newCachedThreadPool(runnable -> {
                Thread thread = new Thread(runnable, "onlyonce-kafka-metadata-" + threads.incrementAndGet());
                thread.setDaemon(true);
                return thread;
            });
        }
        return metadataLookups;
    }

    /** Hands one record to the producer; returns whether the thread was interrupted meanwhile. */
    private boolean send(OutboxMessage message, CompletableFuture<Void> result, Set<String> missing) {
        String topic = message.exchange();
        try {
            producer.send(toRecord(message), (metadata, error) -> {
                if (error == null) {
                    lastAck.set(System.nanoTime());
                    result.complete(null);
                } else {
                    if (Failures.isMissingTopic(error)) {
                        missing.add(topic);
                    }
                    result.completeExceptionally(Failures.of(error, message.id(), topic, true));
                }
            });
            return false;
        } catch (InterruptException e) {
            result.completeExceptionally(Failures.of(e, message.id(), topic, false));
            return true;
        } catch (RuntimeException e) {
            if (Failures.isMissingTopic(e)) {
                missing.add(topic);
            }
            result.completeExceptionally(Failures.of(e, message.id(), topic, false));
            return false;
        }
    }

    /** The future of {@code result} that fails as TIMED_OUT when no callback came within the send timeout. */
    private CompletableFuture<Void> bound(CompletableFuture<Void> result, OutboxMessage message) {
        if (result.isDone()) {
            return result;
        }
        CompletableFuture<Void> out = new CompletableFuture<>();
        result.orTimeout(sendTimeoutMillis, TimeUnit.MILLISECONDS).whenComplete((ignored, error) -> {
            if (error == null) {
                out.complete(null);
            } else if (error instanceof TimeoutException) {
                out.completeExceptionally(new KafkaPublishException(Reason.TIMED_OUT, message.id(), message.exchange(),
                        "message " + message.id() + " to topic '" + message.exchange()
                                + "' was not acknowledged within " + sendTimeoutMillis + " ms", null));
            } else {
                out.completeExceptionally(error);
            }
        });
        return out;
    }

    /**
     * The record that {@link #publish} sends for {@code message}.
     *
     * @param message the outbox message
     * @return the record, with key, headers and UTF-8 value as described above
     */
    static ProducerRecord<String, byte[]> toRecord(OutboxMessage message) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(KafkaMessageHeaders.MESSAGE_ID, utf8(message.id()));
        headers.add(KafkaMessageHeaders.MESSAGE_TYPE, utf8(message.routingKey()));
        headers.add(KafkaMessageHeaders.CONTENT_TYPE, utf8(KafkaMessageHeaders.JSON));
        message.headers().forEach((name, value) -> {
            if (!name.equals(KafkaMessageHeaders.KEY) && !name.equals(KafkaMessageHeaders.MESSAGE_ID)
                    && !name.equals(KafkaMessageHeaders.MESSAGE_TYPE) && !name.equals(KafkaMessageHeaders.CONTENT_TYPE)) {
                headers.add(name, utf8(value));
            }
        });
        String key = message.headers().getOrDefault(KafkaMessageHeaders.KEY, message.id());
        return new ProducerRecord<>(message.exchange(), null, key, utf8(message.payload()), headers);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Closes the producer when this transport created it ({@link #create}); a caller's producer stays open. */
    @Override
    public void close() {
        synchronized (this) {
            if (metadataLookups != null) {
                metadataLookups.shutdownNow();
            }
        }
        if (ownsProducer) {
            producer.close(sendTimeout);
        }
    }

    @Override
    public String toString() {
        return "KafkaMessageTransport[sendTimeout=" + sendTimeout + "]";
    }
}
