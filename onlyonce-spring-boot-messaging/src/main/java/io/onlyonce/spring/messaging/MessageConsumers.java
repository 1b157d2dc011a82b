package io.onlyonce.spring.messaging;

import io.onlyonce.messaging.MessageConsumer;
import java.util.List;

/**
 * The idempotent consumers the auto-configuration made from the {@link ConsumerDefinition} beans,
 * in their order.
 *
 * @param all the consumers
 */
public record MessageConsumers(List<MessageConsumer> all) {

    public MessageConsumers {
        all = List.copyOf(all);
    }

    /** The consumer named {@code name}. */
    public MessageConsumer named(String name) {
        return all.stream().filter(c -> c.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no consumer named " + name));
    }
}
