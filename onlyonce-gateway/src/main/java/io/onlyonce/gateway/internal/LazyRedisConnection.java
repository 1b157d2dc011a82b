package io.onlyonce.gateway.internal;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.onlyonce.redis.RedisStoreConnection;
import java.time.Duration;

/**
 * The gateway's Redis client and its one connection, a {@link RedisStoreConnection} made on first
 * use; the first attempt begins at start-up without waiting for it, so the gateway starts while
 * Redis is down (and fails open meanwhile), and a failed attempt is made again on the next call.
 * Once connected Lettuce reconnects by itself; while it is disconnected calls fail at once, never
 * queued, and the connection is made anew in the background (see {@link RedisStoreConnection}).
 */
public final class LazyRedisConnection implements AutoCloseable {

    private final RedisClient client;
    private final RedisStoreConnection connection;

    /**
     * @param timeout the command and connect timeout of the client, a backstop behind the budget
     *     of each call
     */
    public LazyRedisConnection(String url, Duration timeout) {
        RedisURI uri = RedisURI.create(url);
        uri.setTimeout(timeout);
        this.client = RedisClient.create(uri);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .build());
        this.connection = RedisStoreConnection.onFirstUse(() -> client);
        // start connecting now, without waiting: the first request should not pay for it
        connection.pingAsync(timeout);
    }

    /** The connection the window store runs its script on. */
    public RedisStoreConnection connection() {
        return connection;
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
