package io.onlyonce.verify.nemesis;

/**
 * One fault of the schedule.
 *
 * @param kind what
 * @param target which part (an instance's name for the instance faults, else the server's)
 * @param holdMs how long it lasts before the nemesis heals it
 * @param gapMs the quiet time after it healed, before the next one
 */
public record Fault(FaultKind kind, String target, long holdMs, long gapMs) {
}
