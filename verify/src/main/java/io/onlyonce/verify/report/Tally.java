package io.onlyonce.verify.report;

import io.onlyonce.verify.history.History;
import io.onlyonce.verify.history.Op;
import io.onlyonce.verify.history.OpType;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The counts a reader looks at first: client operations by {@code f} and type, invocations left
 * without a completion, and faults struck by kind (their {@code start} events) with their targets.
 *
 * @param byF per client operation, the count per type, in the order the operations first appear
 * @param unfinished per client operation, the invocations the run ended with in flight
 * @param faults per fault kind, its {@code start} events
 * @param targets per fault kind, what it struck
 * @param end the largest time in the history, in nanoseconds
 */
record Tally(Map<String, Map<OpType, Long>> byF, Map<String, Long> unfinished, Map<String, Long> faults,
        Map<String, Set<String>> targets, long end) {

    static Tally of(History history) {
        Map<String, Map<OpType, Long>> byF = new LinkedHashMap<>();
        Map<String, Long> unfinished = new LinkedHashMap<>();
        Map<String, Long> faults = new TreeMap<>();
        Map<String, Set<String>> targets = new TreeMap<>();
        long end = 0;
        for (Op op : history.ops()) {
            end = Math.max(end, op.time());
            if (op.isClient()) {
                byF.computeIfAbsent(op.f(), f -> new LinkedHashMap<>()).merge(op.type(), 1L, Long::sum);
                if (op.isInvoke() && history.completion(op).isEmpty()) {
                    unfinished.merge(op.f(), 1L, Long::sum);
                }
            } else if (op.isNemesis() && "start".equals(op.str("phase"))) {
                faults.merge(op.f(), 1L, Long::sum);
                String target = op.str("target");
                if (target != null) {
                    targets.computeIfAbsent(op.f(), k -> new TreeSet<>()).add(target);
                }
            }
        }
        return new Tally(byF, unfinished, faults, targets, end);
    }

    long count(String f, OpType type) {
        return byF.getOrDefault(f, Map.of()).getOrDefault(type, 0L);
    }

    long clientOps() {
        return byF.values().stream().flatMap(m -> m.values().stream()).mapToLong(Long::longValue).sum();
    }
}
