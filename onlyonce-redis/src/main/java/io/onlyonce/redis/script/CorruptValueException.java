package io.onlyonce.redis.script;

import org.jspecify.annotations.Nullable;

/**
 * A key holds a value that its script did not write: another Redis type, a value of another
 * layout (an older version of the stores, another application under the same prefix), or one
 * without the TTL every key of the stores carries. Neither the stores nor {@link ScriptRunner}
 * guess an answer from it: they throw {@link io.onlyonce.StoreUnavailableException} with this as
 * its cause, until the key expires or someone deletes it.
 *
 * <p>{@link ScriptRunner} raises it for the error replies {@code WRONGTYPE} and
 * {@value ScriptErrorReply#CORRUPT}; the stores also raise it for a value their decoding refuses.
 */
public final class CorruptValueException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param redisKey the key, as its UTF-8 text
     * @param reason what is wrong with the value
     * @param cause the error reply or decoding failure, if any
     */
    public CorruptValueException(String redisKey, String reason, @Nullable Throwable cause) {
        super("corrupt value under Redis key " + redisKey + ": " + reason + "; not written by the OnlyOnce stores", cause);
    }
}
