package io.onlyonce.redis.internal;

import org.jspecify.annotations.Nullable;

/**
 * A key of the stores holds a value they did not write: another Redis type, a value of another
 * layout (an older version of these stores, another application under the same prefix), or one
 * without the TTL every key of theirs carries. The stores never guess an answer from it: they throw
 * {@link io.onlyonce.StoreUnavailableException} with this as its cause, until the key expires or
 * someone deletes it.
 */
public final class CorruptValueException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param redisKey the key, as its UTF-8 text
     * @param reason what is wrong with the value
     */
    public CorruptValueException(String redisKey, String reason, @Nullable Throwable cause) {
        super("corrupt value under Redis key " + redisKey + ": " + reason + "; not written by the OnlyOnce stores", cause);
    }
}
