package io.onlyonce.spring.method;

import java.util.Collection;
import java.util.Optional;

/** The name a misspelt one was most likely meant to be, for a "did you mean" hint. */
final class NearestName {

    /** The largest number of edits (insertions, deletions, substitutions) a suggestion may be away. */
    static final int MAX_DISTANCE = 2;

    private NearestName() {
    }

    /**
     * The candidate fewest edits away from {@code name}, if that is at most {@link #MAX_DISTANCE}
     * and fewer than the length of {@code name} (a one-letter name is near everything short); the
     * first such candidate on a tie.
     */
    static Optional<String> among(String name, Collection<String> candidates) {
        String nearest = null;
        int nearestDistance = Math.min(MAX_DISTANCE, name.length() - 1) + 1;
        for (String candidate : candidates) {
            int distance = distance(name, candidate);
            if (distance < nearestDistance) {
                nearest = candidate;
                nearestDistance = distance;
            }
        }
        return Optional.ofNullable(nearest);
    }

    /** The Levenshtein distance between {@code a} and {@code b}. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
