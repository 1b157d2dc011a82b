package io.onlyonce.engine;

/** What {@link IdempotencyEngine#admitAsync} decided: the non-blocking twin of {@link Admission}. */
public sealed interface AsyncAdmission {

    /**
     * The caller holds the key (or runs unprotected under PERMISSIVE): run the action, then finish
     * the execution.
     *
     * @param execution the handle to finish the execution with
     */
    record Admitted(AsyncExecution execution) implements AsyncAdmission {
    }

    /**
     * Nothing may run: replay, in progress, mismatch or STRICT store failure.
     *
     * @param outcome what to answer
     */
    record Decided(Outcome outcome) implements AsyncAdmission {
    }
}
