package io.onlyonce.spring.method;

import java.util.Collection;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Which response headers are stored with an answer and replayed: every header the application
 * wrote for the answer, less those that belong to one exchange only ({@link #NEVER_REPLAYED}) and
 * those the application excludes ({@code onlyonce.key.replay-excluded-headers}). Names are
 * compared case-insensitively.
 */
public final class ReplayHeaders {

    /**
     * Lower-case names never stored: cookies (a session is the first client's, not the retry's),
     * the date and length of one message, hop-by-hop headers, and the replay mark itself.
     */
    public static final Set<String> NEVER_REPLAYED = Set.of("set-cookie", "set-cookie2", "date", "content-length",
            "transfer-encoding", "connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
            "proxy-connection", "te", "trailer", "upgrade", "idempotent-replayed");

    private static final ReplayHeaders DEFAULT = new ReplayHeaders(NEVER_REPLAYED);

    private final Set<String> excluded;

    private ReplayHeaders(Set<String> excluded) {
        this.excluded = excluded;
    }

    /** {@link #NEVER_REPLAYED} and {@code names} (any case). */
    public static ReplayHeaders excluding(Collection<String> names) {
        if (names.isEmpty()) {
            return DEFAULT;
        }
        Set<String> excluded = new HashSet<>(NEVER_REPLAYED);
        for (String name : names) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("a replay-excluded header name must not be blank");
            }
            excluded.add(name.strip().toLowerCase(Locale.ROOT));
        }
        return new ReplayHeaders(Set.copyOf(excluded));
    }

    /** Whether a header of this name is stored and replayed. */
    public boolean isReplayed(String name) {
        return !excluded.contains(name.toLowerCase(Locale.ROOT));
    }

    @Override
    public String toString() {
        return "ReplayHeaders excluding " + excluded;
    }
}
