package io.onlyonce.messaging.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jspecify.annotations.Nullable;

/**
 * The producer configuration of the transport and of the dead-letter publisher: the caller's
 * settings with the durability ones forced and the waits bounded by the send timeout.
 */
final class ProducerSettings {

    /** The default {@code linger.ms}: a relay's batch leaves together, one message waits little. */
    static final long DEFAULT_LINGER_MS = 5;

    private ProducerSettings() {
    }

    /**
     * The configuration to build a producer with.
     *
     * @param userConfig the caller's settings (bootstrap servers, security, client id, ...)
     * @param sendTimeout how long a send may take until it is acknowledged
     * @return a new map
     * @throws IllegalArgumentException when {@code acks} is not {@code all}/{@code -1} or idempotence is off
     */
    public static Map<String, Object> of(Map<String, ?> userConfig, Duration sendTimeout) {
        Objects.requireNonNull(userConfig, "producerConfig");
        long timeout = positiveMillis(sendTimeout);
        Map<String, Object> config = new HashMap<>(userConfig);
        Object acks = config.get(ProducerConfig.ACKS_CONFIG);
        if (acks != null && !"all".equalsIgnoreCase(text(acks)) && !"-1".equals(text(acks))) {
            throw new IllegalArgumentException(ProducerConfig.ACKS_CONFIG + " must be all (or -1), was " + text(acks)
                    + ": a message is marked sent on the broker's acknowledgement, which must mean it is replicated");
        }
        Object idempotence = config.get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG);
        if (idempotence != null && "false".equals(text(idempotence).toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG
                    + " must be true: without it a retried send can be written twice or out of order");
        }
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        long linger = longValue(config.get(ProducerConfig.LINGER_MS_CONFIG), DEFAULT_LINGER_MS);
        config.put(ProducerConfig.LINGER_MS_CONFIG, linger);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG,
                Math.min(timeout, longValue(config.get(ProducerConfig.MAX_BLOCK_MS_CONFIG), timeout)));
        long delivery = Math.min(timeout, longValue(config.get(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG), timeout));
        // the client requires delivery.timeout.ms >= linger.ms + request.timeout.ms
        long request = Math.min(longValue(config.get(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG), 30_000L),
                Math.max(1, delivery - linger));
        delivery = Math.max(delivery, linger + request);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(Integer.MAX_VALUE, request));
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.min(Integer.MAX_VALUE, delivery));
        return config;
    }

    /**
     * The milliseconds of a positive duration.
     *
     * @param timeout the duration
     * @return its milliseconds, at least 1
     * @throws IllegalArgumentException when it is not positive
     */
    public static long positiveMillis(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the send timeout must be positive, was " + timeout);
        }
        return Math.max(1, timeout.toMillis());
    }

    private static String text(Object value) {
        return String.valueOf(value).trim();
    }

    private static long longValue(@Nullable Object value, long fallback) {
        if (value == null) {
            return fallback;
        }
        if (value instanceof Number number) {
            return number.longValue();
        }
        try {
            return Long.parseLong(text(value));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a number: " + value, e);
        }
    }
}
