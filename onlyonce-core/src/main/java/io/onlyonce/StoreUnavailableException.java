package io.onlyonce;

/**
 * A store could not be reached or did not answer (server down, connection refused, timeout).
 * Stores throw this and nothing else for infrastructure faults, so callers can apply their
 * STRICT / PERMISSIVE policy. The message names the operation, never the server's internals.
 */
public class StoreUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StoreUnavailableException(String operation, Throwable cause) {
        super("store unavailable during " + operation, cause);
    }
}
