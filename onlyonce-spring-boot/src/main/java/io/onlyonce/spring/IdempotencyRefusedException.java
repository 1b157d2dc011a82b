package io.onlyonce.spring;

/**
 * An {@link Idempotent} call on a bean that is not a web handler (a service method, a message
 * listener) was not run: the same key is being executed elsewhere, was used with other arguments,
 * or completed without a result that can be returned again. A store that cannot be reached under the
 * STRICT policy surfaces as {@link io.onlyonce.StoreUnavailableException} instead. Thrown to the
 * caller; a message listener container treats it as a failure and redelivers later.
 */
public abstract sealed class IdempotencyRefusedException extends RuntimeException
        permits IdempotencyRefusedException.InProgress, IdempotencyRefusedException.KeyReused,
        IdempotencyRefusedException.ResultNotKept {

    private static final long serialVersionUID = 1L;

    private final String key;

    IdempotencyRefusedException(String message, String key) {
        super(message, null, false, false);
        this.key = key;
    }

    /** The idempotency key name of the refused call. */
    public String key() {
        return key;
    }

    /** The same key is being executed by another call; retry after {@link #retryAfter()}. */
    public static final class InProgress extends IdempotencyRefusedException {
        private static final long serialVersionUID = 1L;
        private final java.time.Duration retryAfter;

        public InProgress(String key, java.time.Duration retryAfter) {
            super("a call with idempotency key '" + key + "' is still running; retry after " + retryAfter, key);
            this.retryAfter = retryAfter;
        }

        public java.time.Duration retryAfter() {
            return retryAfter;
        }
    }

    /** The key was used by a call with other arguments; nothing ran. */
    public static final class KeyReused extends IdempotencyRefusedException {
        private static final long serialVersionUID = 1L;

        public KeyReused(String key) {
            super("idempotency key '" + key + "' was already used by a call with other arguments", key);
        }
    }

    /** A call with this key ran, but its result could not be kept to return again; it does not run twice. */
    public static final class ResultNotKept extends IdempotencyRefusedException {
        private static final long serialVersionUID = 1L;

        public ResultNotKept(String key) {
            super("a call with idempotency key '" + key + "' already ran; its result was not kept", key);
        }
    }
}
