package io.onlyonce.engine;

import java.util.Set;

/**
 * Decides, by status, whether a finished execution is kept (stored for replay) or released so a
 * retry executes. The default keeps 1xx to 4xx (deterministic answers) and releases 5xx and the
 * "try again" statuses 408, 409, 425 and 429.
 */
@FunctionalInterface
public interface ResponsePolicy {

    /** The default policy. */
    ResponsePolicy DEFAULT = new ResponsePolicy() {
        private final Set<Integer> transientStatuses = Set.of(408, 409, 425, 429);

        @Override
        public boolean store(int status) {
            return status < 500 && !transientStatuses.contains(status);
        }
    };

    /** Whether an answer with {@code status} is kept and replayed to every retry with the same key. */
    boolean store(int status);
}
