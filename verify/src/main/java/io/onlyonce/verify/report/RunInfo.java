package io.onlyonce.verify.report;

import java.time.Instant;
import java.util.List;

/**
 * What a report says about the run itself, beside its history: how it was started and how long it took.
 *
 * @param seed the seed of the fault schedule and the workload choices
 * @param minutes how long the workload was asked to run
 * @param faults the fault kinds requested
 * @param breaks the protections switched off
 * @param command the exact command that reproduces the run
 * @param startedAt when the run started
 * @param durationMs how long the whole run took, drain included
 * @param notes remarks for the reader, e.g. {@code drain took 12 s}
 */
public record RunInfo(long seed, double minutes, List<String> faults, List<String> breaks, String command,
        Instant startedAt, long durationMs, List<String> notes) {

    public RunInfo {
        faults = faults == null ? List.of() : List.copyOf(faults);
        breaks = breaks == null ? List.of() : List.copyOf(breaks);
        notes = notes == null ? List.of() : List.copyOf(notes);
        command = command == null ? "" : command;
    }
}
