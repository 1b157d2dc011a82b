package io.onlyonce.verify.check;

import io.onlyonce.verify.history.History;

/**
 * A check of a whole history against one rule. Implementations are pure functions of the history
 * (client operations, nemesis events and the final read in it), linear in its length.
 */
public interface Checker {

    /** A short stable name, e.g. {@code at-most-once}. */
    String name();

    CheckResult check(History history);
}
