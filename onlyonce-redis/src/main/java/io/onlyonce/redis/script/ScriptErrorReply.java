package io.onlyonce.redis.script;

import java.util.List;

/**
 * An error reply from Redis to a script call, as a {@link ScriptPort} reports it whatever its
 * client: the message is the reply, starting with its error code ({@code NOSCRIPT},
 * {@code WRONGTYPE}, {@value #CORRUPT}, {@code OOM} ...); the cause is the client's own exception.
 * {@link ScriptRunner} decides what each code means (see there).
 */
public final class ScriptErrorReply extends RuntimeException {

    /** The server does not have the script cached: it did not run, and may be sent again with {@code EVAL}. */
    public static final String NOSCRIPT = "NOSCRIPT";
    /** The key holds another Redis type than the script's command works on. */
    public static final String WRONGTYPE = "WRONGTYPE";
    /**
     * The error code a script answers ({@code redis.error_reply}) when a key holds a value it did not
     * write. A script with several keys names the key by its 1-based index right after the code:
     * {@code ONLYONCE_CORRUPT #2 not a counter}.
     */
    public static final String CORRUPT = "ONLYONCE_CORRUPT";
    /**
     * The error code of a script whose user-written part failed (a Lua error, a refused command, an
     * answer of the wrong shape), such as the effect of {@code RedisAtomicExecutor}: the caller's
     * failure, not an unavailable store.
     */
    public static final String SCRIPT_FAILED = "ONLYONCE_EFFECT";
    /** The start of the error Redis answers for a script that does not compile. */
    public static final String NOT_COMPILED = "ERR Error compiling script";

    private static final List<String> ACTED_ON = List.of(NOSCRIPT, CORRUPT, WRONGTYPE, SCRIPT_FAILED, NOT_COMPILED);
    private static final long serialVersionUID = 1L;

    /**
     * @param reply the error reply, starting with its code
     * @param cause the client's exception
     */
    public ScriptErrorReply(String reply, Throwable cause) {
        super(reply, cause);
    }

    /** Whether the server did not have the script cached ({@value #NOSCRIPT}): the script did not run. */
    public boolean isNoScript() {
        return String.valueOf(getMessage()).startsWith(NOSCRIPT);
    }

    /**
     * Whether {@code message} starts with one of the codes {@link ScriptRunner} tells apart:
     * {@value #NOSCRIPT}, {@value #CORRUPT}, {@value #WRONGTYPE}, {@value #SCRIPT_FAILED} and
     * {@value #NOT_COMPILED}. For a port whose client reports replies only as an exception's text
     * (Spring Data Redis): only such a message may become a {@code ScriptErrorReply}, so that a
     * timeout whose message happens to list a reply code is never taken for one (a timed-out
     * {@code EVALSHA} may have run, and must not be sent again as after {@code NOSCRIPT}). Any other
     * reply is reported as {@link io.onlyonce.StoreUnavailableException} by the port, and means the
     * same to the runner.
     */
    public static boolean isActedOn(String message) {
        for (String code : ACTED_ON) {
            if (message.startsWith(code)) {
                return true;
            }
        }
        return false;
    }
}
