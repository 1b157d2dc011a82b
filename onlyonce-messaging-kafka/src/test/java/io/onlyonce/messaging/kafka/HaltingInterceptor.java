package io.onlyonce.messaging.kafka;

import java.util.Map;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * A producer interceptor that ends the JVM at once ({@link Runtime#halt}: no shutdown hook, no
 * commit, no LeaveGroup, as SIGKILL) when the broker acknowledged the first record it sent: on the
 * dead-letter producer, the moment between the dead letter's publish and the commit of its record's
 * offset. Only in a JVM started with {@code -Donlyonce.test.halt=ack}; with {@code -Donlyonce.test.halt=send}
 * it ends the JVM when the first record is handed to the producer instead, before it is sent: a dead
 * letter decided (and marked) that never reached the broker.
 */
public final class HaltingInterceptor implements ProducerInterceptor<Object, Object> {

    /** The exit status of a JVM it ended. */
    static final int STATUS = 97;

    @Override
    public ProducerRecord<Object, Object> onSend(ProducerRecord<Object, Object> record) {
        if ("send".equals(System.getProperty("onlyonce.test.halt"))) {
            halt("before sending " + record.topic());
        }
        return record;
    }

    @Override
    public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
        if (exception == null && "ack".equals(System.getProperty("onlyonce.test.halt"))) {
            halt("at the acknowledgement of " + metadata);
        }
    }

    private static void halt(String where) {
        System.out.println("HALT " + where);
        System.out.flush();
        Runtime.getRuntime().halt(STATUS);
    }

    @Override
    public void close() {
    }

    @Override
    public void configure(Map<String, ?> configs) {
    }
}
