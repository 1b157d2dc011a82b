package io.onlyonce.spring.messaging.kafka;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * A {@link ConsumerRecords} made of some of a poll's records, on the Kafka client of either Spring
 * Boot line: from client 4.0 on it carries the poll's next offsets ({@code nextOffsets()}, which
 * Spring Kafka 4 reads); client 3.x (Spring Boot 3.5) has neither that method nor the constructor
 * taking them.
 */
final class PolledRecords {

    private static final @Nullable Method NEXT_OFFSETS = ReflectionUtils.findMethod(ConsumerRecords.class, "nextOffsets");

    private static final @Nullable Constructor<?> WITH_NEXT_OFFSETS =
            ClassUtils.getConstructorIfAvailable(ConsumerRecords.class, Map.class, Map.class);

    private PolledRecords() {
    }

    /**
     * {@code records}, with the next offsets of {@code polled} where the client has them.
     *
     * @param records the records by partition
     * @param polled the poll they were taken from, or {@code null} for none (no next offsets)
     * @return the records
     */
    @SuppressWarnings({"unchecked", "deprecation"})
    static ConsumerRecords<Object, Object> of(Map<TopicPartition, List<ConsumerRecord<Object, Object>>> records,
            @Nullable ConsumerRecords<Object, Object> polled) {
        if (WITH_NEXT_OFFSETS == null || NEXT_OFFSETS == null) {
            return new ConsumerRecords<>(records);
        }
        Object nextOffsets = polled == null ? Map.of() : ReflectionUtils.invokeMethod(NEXT_OFFSETS, polled);
        return (ConsumerRecords<Object, Object>) BeanUtils.instantiateClass(WITH_NEXT_OFFSETS, records,
                nextOffsets == null ? Map.of() : nextOffsets);
    }
}
