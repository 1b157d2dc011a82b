package io.onlyonce.engine;

import io.onlyonce.StoredResponse;
import java.util.Set;

/**
 * Decides whether a finished execution is stored for replay or released so a retry executes.
 * The default stores 2xx, 3xx and 4xx (deterministic answers) and releases 5xx and the
 * "try again" statuses 408, 409, 425 and 429.
 */
@FunctionalInterface
public interface ResponsePolicy {

    /** The default policy. */
    ResponsePolicy DEFAULT = new ResponsePolicy() {
        private final Set<Integer> transientStatuses = Set.of(408, 409, 425, 429);

        @Override
        public boolean store(StoredResponse response) {
            return response.status() < 500 && !transientStatuses.contains(response.status());
        }
    };

    /** Whether {@code response} is kept and replayed to every retry with the same key. */
    boolean store(StoredResponse response);
}
