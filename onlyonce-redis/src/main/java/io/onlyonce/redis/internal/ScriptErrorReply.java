package io.onlyonce.redis.internal;

/**
 * An error reply from Redis to a script call, as any client reports it: its message starts with the
 * error code ({@code NOSCRIPT}, {@code WRONGTYPE}, {@code ONLYONCE_CORRUPT}, {@code OOM} ...). The
 * cause is the client's own exception.
 */
public final class ScriptErrorReply extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param reply the error reply, starting with its code
     * @param cause the client's exception
     */
    public ScriptErrorReply(String reply, Throwable cause) {
        super(reply, cause);
    }

    /** Whether the server did not have the script cached ({@code NOSCRIPT}): the script did not run. */
    public boolean isNoScript() {
        return String.valueOf(getMessage()).startsWith("NOSCRIPT");
    }
}
