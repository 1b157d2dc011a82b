package io.onlyonce.spring.messaging.kafka;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.jspecify.annotations.Nullable;

/**
 * Writes a dead-lettered record's key or value as the listener received it: bytes as they are,
 * text as UTF-8, anything else through the application's configured serializer
 * ({@code spring.kafka.producer.key-serializer} / {@code value-serializer}).
 */
public final class DeadLetterSerializer implements Serializer<Object> {

    private final Serializer<Object> fallback;

    /**
     * A serializer handing objects that are neither bytes nor text to {@code fallback}.
     *
     * @param fallback the application's serializer
     */
    public DeadLetterSerializer(Serializer<Object> fallback) {
        this.fallback = Objects.requireNonNull(fallback, "fallback");
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        fallback.configure(configs, isKey);
    }

    @Override
    public byte @Nullable [] serialize(String topic, @Nullable Object data) {
        if (data == null) {
            return null;
        }
        if (data instanceof byte[] bytes) {
            return bytes;
        }
        if (data instanceof Bytes bytes) {
            return bytes.get();
        }
        if (data instanceof String text) {
            return text.getBytes(StandardCharsets.UTF_8);
        }
        return fallback.serialize(topic, data);
    }

    @Override
    public void close() {
        fallback.close();
    }
}
