package io.onlyonce.engine;

/** What to do when the idempotency store cannot be reached. */
public enum StoreFailurePolicy {
    /** Refuse: nothing executes; the caller answers 503 with {@code Retry-After}. */
    STRICT,
    /** Execute unprotected, counted; the data layer (unique constraints) decides. */
    PERMISSIVE
}
