package io.onlyonce.engine;

/**
 * The first half of an execution, for callers that cannot wrap the action in one call (a web
 * filter that sees the serialised response only after the handler returned):
 * {@link IdempotencyEngine#admit} either decides at once or admits the caller to run.
 */
public sealed interface Admission {

    /**
     * The caller holds the key (or runs unprotected under PERMISSIVE): run the action, then call
     * {@link Execution#complete} with its response, or {@link Execution#fail} if it threw.
     *
     * @param execution the handle to finish the execution with
     */
    record Admitted(Execution execution) implements Admission {
    }

    /**
     * Nothing may run: replay, in progress, mismatch or STRICT store failure.
     *
     * @param outcome what to answer
     */
    record Decided(Outcome outcome) implements Admission {
    }
}
