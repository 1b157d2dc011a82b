package io.onlyonce.redis;

import io.lettuce.core.api.StatefulConnection;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.token.TokenStore;
import io.onlyonce.window.WindowStore;
import java.util.function.Function;

/** The three Redis stores on one way to reach Redis: a Lettuce connection, or a {@link RedisStoreConnection}. */
public final class RedisStores {

    private final Function<RedisStoreConfig, IdempotencyStore> idempotency;
    private final Function<RedisStoreConfig, TokenStore> tokens;
    private final Function<RedisStoreConfig, WindowStore> windows;

    private RedisStores(Function<RedisStoreConfig, IdempotencyStore> idempotency,
            Function<RedisStoreConfig, TokenStore> tokens, Function<RedisStoreConfig, WindowStore> windows) {
        this.idempotency = idempotency;
        this.tokens = tokens;
        this.windows = windows;
    }

    /** The stores on a Lettuce connection ({@code of(StatefulConnection, config)}). */
    public static RedisStores on(StatefulConnection<byte[], byte[]> connection) {
        return new RedisStores(config -> RedisIdempotencyStore.of(connection, config),
                config -> RedisTokenStore.of(connection, config), config -> RedisWindowStore.of(connection, config));
    }

    /** The stores on a {@link RedisStoreConnection} ({@code of(RedisStoreConnection, config)}). */
    public static RedisStores on(RedisStoreConnection connection) {
        return new RedisStores(config -> RedisIdempotencyStore.of(connection, config),
                config -> RedisTokenStore.of(connection, config), config -> RedisWindowStore.of(connection, config));
    }

    public IdempotencyStore idempotency(RedisStoreConfig config) {
        return idempotency.apply(config);
    }

    public TokenStore tokens(RedisStoreConfig config) {
        return tokens.apply(config);
    }

    public WindowStore windows(RedisStoreConfig config) {
        return windows.apply(config);
    }
}
