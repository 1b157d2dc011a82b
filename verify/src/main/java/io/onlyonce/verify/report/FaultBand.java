package io.onlyonce.verify.report;

import io.onlyonce.verify.history.History;
import io.onlyonce.verify.history.Op;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One fault as it struck: a nemesis {@code start} paired with the next {@code stop} of the same kind and
 * target, or running to the end of the history when no stop came.
 *
 * @param kind the fault kind (the nemesis event's {@code f})
 * @param target what it struck
 * @param detail the start's free text
 * @param startIndex the history index of the start
 * @param start nanoseconds since the run started, at the start
 * @param end nanoseconds at the stop, or at the end of the history
 * @param stopped whether a stop was seen
 */
record FaultBand(String kind, String target, String detail, long startIndex, long start, long end, boolean stopped) {

    /** The bands of a history, in the order the faults started; {@code endOfRun} ends the unmatched ones. */
    static List<FaultBand> of(History history, long endOfRun) {
        Map<String, Deque<Op>> open = new LinkedHashMap<>();
        List<FaultBand> bands = new ArrayList<>();
        for (Op op : history.nemesis()) {
            String key = op.f() + "\u0000" + op.str("target");
            String phase = op.str("phase");
            if ("start".equals(phase)) {
                open.computeIfAbsent(key, k -> new ArrayDeque<>()).addLast(op);
            } else if ("stop".equals(phase)) {
                Deque<Op> starts = open.get(key);
                if (starts != null && !starts.isEmpty()) {
                    bands.add(band(starts.pollFirst(), op.time(), true));
                }
            }
        }
        for (Deque<Op> starts : open.values()) {
            for (Op start : starts) {
                bands.add(band(start, Math.max(endOfRun, start.time()), false));
            }
        }
        bands.sort(Comparator.comparingLong(FaultBand::startIndex));
        return bands;
    }

    private static FaultBand band(Op start, long end, boolean stopped) {
        return new FaultBand(start.f(), start.str("target"), start.str("detail"), start.index(), start.time(), end, stopped);
    }
}
