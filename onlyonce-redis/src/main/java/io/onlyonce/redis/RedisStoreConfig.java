package io.onlyonce.redis;

import java.time.Duration;

/**
 * Settings shared by the Redis stores.
 *
 * @param keyPrefix prepended to every key the stores write, so that several applications (or
 *     tests) can share one Redis; may be empty, but without control characters. A hash tag in it
 *     (for example {@code "{oo}:"}) would pin every key to one Cluster slot, so leave braces out
 *     unless that is what you want
 * @param tokenShards how many hashes the tokens of one expiry minute are spread over, 1 to
 *     65536; more shards spread the load of a busy minute over more keys (and Cluster slots),
 *     fewer shards pack small volumes tighter
 * @param commandTimeout the budget of one store call: the longest a call waits for its connection
 *     and its answer together, whatever the connection's own command timeout (Lettuce's default is
 *     60 s). A call over budget is cancelled and throws
 *     {@link io.onlyonce.StoreUnavailableException}; the script may still have run on the server.
 *     Positive
 */
public record RedisStoreConfig(String keyPrefix, int tokenShards, Duration commandTimeout) {

    /** The default key prefix. */
    public static final String DEFAULT_KEY_PREFIX = "oo:";
    /** The default number of token shards per expiry minute. */
    public static final int DEFAULT_TOKEN_SHARDS = 256;
    /** The most token shards: a shard is chosen by the first two bytes of the token id. */
    public static final int MAX_TOKEN_SHARDS = 65536;
    /** The default budget of one store call. */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(2);

    public RedisStoreConfig {
        if (keyPrefix == null) {
            throw new IllegalArgumentException("keyPrefix must not be null");
        }
        for (int i = 0; i < keyPrefix.length(); i++) {
            if (Character.isISOControl(keyPrefix.charAt(i))) {
                throw new IllegalArgumentException("keyPrefix must not contain control characters");
            }
        }
        if (tokenShards < 1 || tokenShards > MAX_TOKEN_SHARDS) {
            throw new IllegalArgumentException("tokenShards must be between 1 and " + MAX_TOKEN_SHARDS);
        }
        if (commandTimeout == null || commandTimeout.isNegative() || commandTimeout.isZero()) {
            throw new IllegalArgumentException("commandTimeout must be positive");
        }
    }

    /** These settings with the {@linkplain #DEFAULT_COMMAND_TIMEOUT default budget} of a store call. */
    public RedisStoreConfig(String keyPrefix, int tokenShards) {
        this(keyPrefix, tokenShards, DEFAULT_COMMAND_TIMEOUT);
    }

    /** Prefix {@code "oo:"}, 256 token shards and a budget of 2 s per store call. */
    public static RedisStoreConfig ofDefaults() {
        return new RedisStoreConfig(DEFAULT_KEY_PREFIX, DEFAULT_TOKEN_SHARDS);
    }

    /** These settings with another budget per store call. */
    public RedisStoreConfig withCommandTimeout(Duration commandTimeout) {
        return new RedisStoreConfig(keyPrefix, tokenShards, commandTimeout);
    }
}
