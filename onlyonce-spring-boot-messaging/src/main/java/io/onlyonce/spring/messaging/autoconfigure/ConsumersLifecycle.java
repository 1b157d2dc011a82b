package io.onlyonce.spring.messaging.autoconfigure;

import java.util.List;
import java.util.function.Consumer;
import org.springframework.context.SmartLifecycle;

/**
 * Starts a transport's consumers (RabbitMQ listener containers, Kafka consumers) before the outbox
 * relay and stops them after it: phase {@value #PHASE}, below the relay's.
 *
 * @param <T> the consumer type
 */
public class ConsumersLifecycle<T> implements SmartLifecycle {

    /** Before the relay's {@code Integer.MAX_VALUE - 1000}. */
    static final int PHASE = Integer.MAX_VALUE - 2000;

    private final List<T> consumers;
    private final Consumer<T> start;
    private final Consumer<T> stop;
    private volatile boolean running;

    public ConsumersLifecycle(List<T> consumers, Consumer<T> start, Consumer<T> stop) {
        this.consumers = List.copyOf(consumers);
        this.start = start;
        this.stop = stop;
    }

    /** The consumers, in the order of their definitions. */
    public List<T> consumers() {
        return consumers;
    }

    @Override
    public void start() {
        consumers.forEach(start);
        running = true;
    }

    @Override
    public void stop() {
        consumers.forEach(stop);
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
