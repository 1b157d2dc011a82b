package io.onlyonce.gateway.internal;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.reactive.RedisClusterReactiveCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * One Lettuce connection ({@code ByteArrayCodec}), begun at start-up without waiting for it, so the
 * gateway starts while Redis is down (and fails open meanwhile); a failed attempt is made again on
 * the next call. Once connected Lettuce reconnects by itself; commands are rejected at once while it is
 * disconnected, never queued.
 */
public final class LazyRedisConnection implements AutoCloseable {

    private final RedisClient client;
    private final RedisURI uri;
    private final AtomicReference<@Nullable CompletableFuture<StatefulRedisConnection<byte[], byte[]>>> current =
            new AtomicReference<>();

    /** @param timeout the command and connect timeout, a backstop behind the filter's own budget */
    public LazyRedisConnection(String url, Duration timeout) {
        this.uri = RedisURI.create(url);
        this.uri.setTimeout(timeout);
        this.client = RedisClient.create();
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .build());
        // start connecting now, without waiting: the first request should not pay for it
        commands().subscribe(ready -> { }, down -> { });
    }

    /** The reactive commands, connecting first when there is no connection yet. */
    public Mono<RedisClusterReactiveCommands<byte[], byte[]>> commands() {
        CompletableFuture<StatefulRedisConnection<byte[], byte[]>> connection = current.get();
        if (connection == null || connection.isCompletedExceptionally() || connection.isCancelled()) {
            CompletableFuture<StatefulRedisConnection<byte[], byte[]>> attempt =
                    client.connectAsync(ByteArrayCodec.INSTANCE, uri).toCompletableFuture();
            if (!current.compareAndSet(connection, attempt)) {
                attempt.thenAccept(StatefulRedisConnection::closeAsync);
                return commands();
            }
            connection = attempt;
        }
        return Mono.fromFuture(connection, true).map(StatefulRedisConnection::reactive);
    }

    @Override
    public void close() {
        CompletableFuture<StatefulRedisConnection<byte[], byte[]>> connection = current.getAndSet(null);
        if (connection != null) {
            connection.thenAccept(StatefulRedisConnection::close);
        }
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
