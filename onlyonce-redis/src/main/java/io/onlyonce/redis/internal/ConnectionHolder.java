package io.onlyonce.redis.internal;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.onlyonce.StoreUnavailableException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The one connection of the Redis stores: either given, or made on first use. A connection made on
 * first use is opened on a thread of its own, so a caller waits for it at most until its deadline
 * (the budget of its store call), and callers that arrive while an attempt runs wait for that same
 * attempt. An attempt that failed is made again by the next call; one that outlives its callers'
 * budgets still completes, and its connection serves the next call. {@code onConnect} runs once,
 * on the connecting thread, after the connection is in use, so a slow check there holds up no call.
 *
 * <p>While a standalone (or Sentinel) connection is disconnected, calls fail at once rather than
 * wait in Lettuce's queue until their deadline. Lettuce reconnects it by itself after a server
 * restart ({@code autoReconnect}, on by default), but with a back-off that grows to 30 s; a
 * connection made on first use is therefore also made anew in the background, at most once a
 * {@linkplain #RENEW_INTERVAL_NANOS few hundred milliseconds}, when a call finds it disconnected,
 * and the new one replaces it as soon as the server answers. Thread-safe.
 */
public final class ConnectionHolder implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ConnectionHolder.class.getName());
    /** The least time between two attempts to make a disconnected connection anew. */
    static final long RENEW_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final @Nullable Supplier<? extends StatefulConnection<byte[], byte[]>> connect;
    private final Consumer<? super StatefulConnection<byte[], byte[]>> onConnect;
    private volatile @Nullable RedisClusterAsyncCommands<byte[], byte[]> commands;
    private volatile @Nullable StatefulConnection<byte[], byte[]> connection;
    private @Nullable CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> attempt;
    private boolean closed;
    private boolean renewing;
    private long lastRenewal = System.nanoTime() - RENEW_INTERVAL_NANOS;

    private ConnectionHolder(@Nullable Supplier<? extends StatefulConnection<byte[], byte[]>> connect,
            Consumer<? super StatefulConnection<byte[], byte[]>> onConnect) {
        this.connect = connect;
        this.onConnect = onConnect;
    }

    /** A connection the caller made and owns; {@link #close()} leaves it open. */
    public static ConnectionHolder of(StatefulConnection<byte[], byte[]> connection) {
        ConnectionHolder holder = new ConnectionHolder(null, made -> { });
        holder.commands = async(connection);
        holder.connection = connection;
        return holder;
    }

    /**
     * A connection made by {@code connect} on first use, and owned by the holder.
     *
     * @param connect opens the connection, blocking; may throw
     * @param onConnect told once of the connection, when the first attempt succeeds
     */
    public static ConnectionHolder onFirstUse(Supplier<? extends StatefulConnection<byte[], byte[]>> connect,
            Consumer<? super StatefulConnection<byte[], byte[]>> onConnect) {
        return new ConnectionHolder(Objects.requireNonNull(connect, "connect"), Objects.requireNonNull(onConnect, "onConnect"));
    }

    /** The asynchronous commands of a standalone (or Sentinel) or a Cluster connection. */
    static RedisClusterAsyncCommands<byte[], byte[]> async(StatefulConnection<byte[], byte[]> connection) {
        if (connection instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster) {
            return cluster.async();
        }
        if (connection instanceof StatefulRedisConnection<byte[], byte[]> standalone) {
            return standalone.async();
        }
        throw new IllegalArgumentException("a standalone or Cluster connection is required");
    }

    /** Whether the connection has been made (it may still be reconnecting). */
    public boolean isConnected() {
        return commands != null;
    }

    /**
     * The connection's commands, connecting first if need be.
     *
     * @param deadline {@link System#nanoTime()} by which the connection must be there
     * @throws StoreUnavailableException when it cannot be made by then
     */
    public RedisClusterAsyncCommands<byte[], byte[]> commands(String operation, long deadline) {
        RedisClusterAsyncCommands<byte[], byte[]> ready = commands;
        if (ready != null) {
            failIfDisconnected(operation);
            return ready;
        }
        try {
            return attempt(operation).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new StoreUnavailableException(operation + " (still connecting)", e);
        } catch (ExecutionException e) {
            throw new StoreUnavailableException(operation + " (cannot connect)", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException(operation + " (interrupted)", e);
        }
    }

    /**
     * The connection's commands without waiting: a stage that completes once the connection is
     * made (at once when it is), or fails with {@link StoreUnavailableException} when it cannot be.
     * The caller bounds the wait itself; giving up never cancels the attempt other callers share.
     */
    public CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> commandsAsync(String operation) {
        RedisClusterAsyncCommands<byte[], byte[]> ready = commands;
        if (ready != null) {
            try {
                failIfDisconnected(operation);
            } catch (StoreUnavailableException e) {
                return CompletableFuture.failedFuture(e);
            }
            return CompletableFuture.completedFuture(ready);
        }
        CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> shared;
        try {
            shared = attempt(operation);
        } catch (StoreUnavailableException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> mine = new CompletableFuture<>();
        shared.whenComplete((made, failure) -> {
            if (failure == null) {
                mine.complete(made);
            } else {
                mine.completeExceptionally(new StoreUnavailableException(operation + " (cannot connect)", failure));
            }
        });
        return mine;
    }

    /** Whether a standalone (or Sentinel) connection has been made and is not connected now. */
    boolean isDisconnected() {
        StatefulConnection<byte[], byte[]> current = connection;
        return current instanceof StatefulRedisConnection<byte[], byte[]> && !current.isOpen();
    }

    /**
     * A standalone connection that is not connected now fails the call at once (a Cluster
     * connection reconnects node by node and is left to Lettuce), and one made on first use is made
     * anew in the background.
     */
    private void failIfDisconnected(String operation) {
        StatefulConnection<byte[], byte[]> current = connection;
        if (current != null && isDisconnected()) {
            renewInBackground(current);
            throw new StoreUnavailableException(operation + " (disconnected)",
                    new IllegalStateException("the stores' connection is reconnecting"));
        }
    }

    private void renewInBackground(StatefulConnection<byte[], byte[]> disconnected) {
        if (connect == null) {
            return;
        }
        synchronized (this) {
            long now = System.nanoTime();
            if (closed || renewing || connection != disconnected || now - lastRenewal < RENEW_INTERVAL_NANOS) {
                return;
            }
            renewing = true;
            lastRenewal = now;
        }
        Thread thread = new Thread(() -> renew(disconnected), "onlyonce-redis-reconnect");
        thread.setDaemon(true);
        thread.start();
    }

    private void renew(StatefulConnection<byte[], byte[]> disconnected) {
        StatefulConnection<byte[], byte[]> made = null;
        try {
            made = Objects.requireNonNull(connect).get();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "OnlyOnce could not reconnect to Redis yet: {0}", e.toString());
        }
        StatefulConnection<byte[], byte[]> replaced = null;
        synchronized (this) {
            renewing = false;
            if (made != null) {
                if (closed || connection != disconnected || disconnected.isOpen()) {
                    replaced = made; // closed meanwhile, or Lettuce reconnected the old one first
                } else {
                    replaced = disconnected;
                    connection = made;
                    commands = async(made);
                }
            }
        }
        if (replaced != null) {
            replaced.closeAsync();
        }
    }

    private synchronized CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> attempt(String operation) {
        if (closed) {
            throw new StoreUnavailableException(operation, new IllegalStateException("the stores' connection is closed"));
        }
        CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> current = attempt;
        if (current == null || current.isCompletedExceptionally()) {
            CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> next = new CompletableFuture<>();
            attempt = next;
            Thread thread = new Thread(() -> connect(next), "onlyonce-redis-connect");
            thread.setDaemon(true);
            thread.start();
            current = next;
        }
        return current;
    }

    private void connect(CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> result) {
        StatefulConnection<byte[], byte[]> made;
        RedisClusterAsyncCommands<byte[], byte[]> ready;
        try {
            made = Objects.requireNonNull(connect).get();
            ready = async(made);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "OnlyOnce could not connect to Redis: {0}", e.toString());
            result.completeExceptionally(e);
            return;
        }
        synchronized (this) {
            if (closed) {
                made.close();
                result.completeExceptionally(new IllegalStateException("the stores' connection is closed"));
                return;
            }
            connection = made;
            commands = ready;
        }
        result.complete(ready);
        try {
            onConnect.accept(made);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "OnlyOnce: the check after connecting to Redis failed: {0}", e.toString());
        }
    }

    /** Closes a connection this holder made; a given connection stays open (its owner closes it). */
    @Override
    public void close() {
        StatefulConnection<byte[], byte[]> made;
        synchronized (this) {
            if (connect == null) {
                return;
            }
            closed = true;
            made = connection;
            connection = null;
            commands = null;
        }
        if (made != null) {
            made.close();
        }
    }
}
