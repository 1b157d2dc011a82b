package io.onlyonce.messaging.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Publishes a dead letter (the record's key, value and headers plus the
 * {@link KafkaDeadLetterHeaders}) and waits for the broker's acknowledgement.
 */
final class DeadLetterPublisher {

    private static final int MAX_REASON_LENGTH = 1_000;

    private final Producer<String, byte[]> producer;
    private final String topic;
    private final String consumer;
    private final long timeoutMillis;
    private final Clock clock;

    /**
     * A publisher.
     *
     * @param producer the dead-letter producer (acks=all, idempotent)
     * @param topic the dead-letter topic
     * @param consumer the consumer's name, for the headers
     * @param timeoutMillis the longest wait for the acknowledgement
     * @param clock the clock of the dead-at header
     */
    public DeadLetterPublisher(Producer<String, byte[]> producer, String topic, String consumer, long timeoutMillis,
            Clock clock) {
        this.producer = producer;
        this.topic = topic;
        this.consumer = consumer;
        this.timeoutMillis = timeoutMillis;
        this.clock = clock;
    }

    /**
     * The dead-letter topic.
     *
     * @return its name
     */
    public String topic() {
        return topic;
    }

    /**
     * Publishes the dead letter of {@code record} and waits until the broker acknowledged it.
     *
     * @param record the record given up on
     * @param reason why
     * @param deliveries the number of the delivery that gave up
     * @throws KafkaPublishException when the broker did not acknowledge it
     * @throws InterruptedException when interrupted while waiting
     */
    public void publish(ConsumerRecord<String, byte[]> record, String reason, int deliveries) throws InterruptedException {
        RecordHeaders headers = new RecordHeaders();
        for (Header header : record.headers()) {
            if (!header.key().startsWith(KafkaDeadLetterHeaders.PREFIX)) {
                headers.add(header);
            }
        }
        String shortReason = reason.length() > MAX_REASON_LENGTH ? reason.substring(0, MAX_REASON_LENGTH) : reason;
        headers.add(KafkaDeadLetterHeaders.REASON, utf8(shortReason));
        headers.add(KafkaDeadLetterHeaders.CONSUMER, utf8(consumer));
        headers.add(KafkaDeadLetterHeaders.ORIGINAL_TOPIC, utf8(record.topic()));
        headers.add(KafkaDeadLetterHeaders.ORIGINAL_PARTITION, utf8(Integer.toString(record.partition())));
        headers.add(KafkaDeadLetterHeaders.ORIGINAL_OFFSET, utf8(Long.toString(record.offset())));
        headers.add(KafkaDeadLetterHeaders.DELIVERIES, utf8(Integer.toString(deliveries)));
        headers.add(KafkaDeadLetterHeaders.DEAD_AT, utf8(Instant.now(clock).toString()));
        ProducerRecord<String, byte[]> deadLetter = new ProducerRecord<>(topic, null, record.key(), record.value(), headers);
        String where = record.topic() + "-" + record.partition() + "@" + record.offset();
        try {
            producer.send(deadLetter).get(timeoutMillis + 1_000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw Failures.of(e, where, topic, true);
        } catch (TimeoutException e) {
            throw new KafkaPublishException(KafkaPublishException.Reason.TIMED_OUT, where, topic, "the dead letter of "
                    + where + " was not acknowledged within " + timeoutMillis + " ms", e);
        } catch (RuntimeException e) {
            throw Failures.of(e, where, topic, false);
        }
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
