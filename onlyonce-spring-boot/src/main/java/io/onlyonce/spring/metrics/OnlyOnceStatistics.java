package io.onlyonce.spring.metrics;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts every decision per layer, outcome and endpoint in this instance, and forwards it to the
 * other recorders (Micrometer when present). Thread-safe.
 */
public final class OnlyOnceStatistics implements OutcomeRecorder {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(OnlyOnceStatistics.class);

    private record Key(String layer, String outcome, String endpoint) {
    }

    private final ConcurrentMap<Key, LongAdder> counts = new ConcurrentHashMap<>();
    private final List<OutcomeRecorder> delegates;

    public OnlyOnceStatistics(List<OutcomeRecorder> delegates) {
        this.delegates = List.copyOf(delegates);
    }

    @Override
    public void record(String layer, String outcome, String endpoint) {
        counts.computeIfAbsent(new Key(layer, outcome, endpoint), k -> new LongAdder()).increment();
        for (OutcomeRecorder delegate : delegates) {
            try {
                delegate.record(layer, outcome, endpoint);
            } catch (RuntimeException e) {
                // a failing metrics backend must never change an answer or strand a held key
                log.warn("an OnlyOnce outcome recorder failed: {}", e.toString());
            }
        }
    }

    /** How often {@code outcome} was decided by {@code layer}, over all endpoints. */
    public long count(String layer, String outcome) {
        return counts.entrySet().stream()
                .filter(e -> e.getKey().layer().equals(layer) && e.getKey().outcome().equals(outcome))
                .mapToLong(e -> e.getValue().sum())
                .sum();
    }

    /** layer → outcome → count, sorted, for the Actuator endpoint. */
    public Map<String, Map<String, Long>> byLayer() {
        Map<String, Map<String, Long>> result = new TreeMap<>();
        counts.forEach((key, count) -> result.computeIfAbsent(key.layer(), l -> new TreeMap<>())
                .merge(key.outcome(), count.sum(), Long::sum));
        return result;
    }

    /** endpoint → outcome → count, sorted, for the Actuator endpoint. */
    public Map<String, Map<String, Long>> byEndpoint() {
        Map<String, Map<String, Long>> result = new TreeMap<>();
        counts.forEach((key, count) -> result.computeIfAbsent(key.endpoint(), l -> new TreeMap<>())
                .merge(key.outcome(), count.sum(), Long::sum));
        return result;
    }
}
