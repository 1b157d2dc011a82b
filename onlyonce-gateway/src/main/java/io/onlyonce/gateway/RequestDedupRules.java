package io.onlyonce.gateway;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The live rules, per route id: the configured rule of each route (from the route's filter
 * arguments, registered again whenever the routes are refreshed) and run-time overrides (the
 * Actuator endpoint {@code requestdedup}), which win until they are removed. Every request reads the
 * rule anew, so a change applies to the next request. Thread-safe.
 */
public final class RequestDedupRules {

    private final Map<String, DedupRule> configured = new ConcurrentHashMap<>();
    private final Map<String, DedupRule> overrides = new ConcurrentHashMap<>();

    /** Registers the configured rule of {@code routeId} (done by the filter factory). */
    public void configure(String routeId, DedupRule rule) {
        configured.put(routeId, rule);
    }

    /** The rule in force on {@code routeId}: its override, else {@code fallback}. */
    public DedupRule effective(String routeId, DedupRule fallback) {
        DedupRule override = overrides.get(routeId);
        return override != null ? override : fallback;
    }

    /** The rule in force on {@code routeId}, if the route has one. */
    public Optional<DedupRule> effective(String routeId) {
        DedupRule override = overrides.get(routeId);
        return Optional.ofNullable(override != null ? override : configured.get(routeId));
    }

    /**
     * Replaces the rule of {@code routeId} until {@link #reset} (or the next override).
     *
     * @return false when no route of that id has a {@code RequestDedup} filter
     */
    public boolean override(String routeId, DedupRule rule) {
        if (!configured.containsKey(routeId)) {
            return false;
        }
        overrides.put(routeId, rule);
        return true;
    }

    /** Drops the override of {@code routeId}: its configured rule applies again. */
    public void reset(String routeId) {
        overrides.remove(routeId);
    }

    /** Every route's rule in force, by route id. */
    public Map<String, DedupRule> all() {
        Map<String, DedupRule> all = new TreeMap<>(configured);
        all.putAll(overrides);
        return all;
    }
}
