package io.onlyonce.verify.check;

import java.util.List;

/**
 * One thing a checker found wrong.
 *
 * @param check the checker's name (as in {@link Checker#name()})
 * @param kind a short slug of what is wrong, e.g. {@code duplicate-effect}
 * @param subject what it is about: a business id, a token, an order number, a user, a sale
 * @param message one sentence a person can read
 * @param ops the indexes of the history operations that show it (may be empty when only the final read shows it)
 */
public record Anomaly(String check, String kind, String subject, String message, List<Long> ops) {

    public Anomaly {
        ops = List.copyOf(ops);
    }
}
