package io.onlyonce.redis.springdata.internal;

import io.onlyonce.StoreUnavailableException;
import io.onlyonce.redis.RedisEvictionPolicy;
import io.onlyonce.redis.script.ClusterSlots;
import io.onlyonce.redis.script.ScriptErrorReply;
import io.onlyonce.redis.script.ScriptPort;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

/**
 * The {@link ScriptPort} (the SPI of {@code onlyonce-redis}'s {@code ScriptRunner}) over a Spring
 * Data Redis {@link RedisConnectionFactory}: Jedis, Redisson
 * ({@code redisson-spring-data}) or Lettuce. Each call borrows a connection from the factory
 * ({@code getConnection()}, which a Cluster factory answers with its cluster connection), runs
 * {@code EVALSHA} or {@code EVAL} and gives the connection back.
 *
 * <p>These calls block, and a blocking client cannot be cancelled, so each runs on a thread of a
 * bounded pool of this port, and the caller waits on it only until its deadline: then it throws
 * {@link StoreUnavailableException} and leaves the thread to wait for the client's own timeout. A
 * call still queued when its deadline has passed is never sent. At most {@code threads} calls wait
 * on Redis at once; when all of them are stuck and {@code threads} more are queued, a call is
 * refused at once. Nothing connects before the first call. On a Cluster connection, a call whose
 * keys hash to several slots is refused with {@link IllegalArgumentException} before it is sent.
 */
public final class SpringDataScriptPort implements ScriptPort {

    private static final System.Logger LOG = System.getLogger(SpringDataScriptPort.class.getName());
    private static final AtomicInteger POOLS = new AtomicInteger();

    private final RedisConnectionFactory factory;
    private final Consumer<? super String> evictionWarning;
    private final ThreadPoolExecutor pool;
    private final AtomicBoolean connected = new AtomicBoolean();

    /**
     * @param threads the most calls that wait on Redis at once (and the most queued behind them)
     * @param evictionWarning told once, after the first call that reached Redis, of
     *     {@link RedisEvictionPolicy}'s warning when the server can evict the stores' keys
     */
    public SpringDataScriptPort(RedisConnectionFactory factory, int threads, Consumer<? super String> evictionWarning) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be positive");
        }
        this.factory = Objects.requireNonNull(factory, "factory");
        this.evictionWarning = Objects.requireNonNull(evictionWarning, "evictionWarning");
        int poolNumber = POOLS.incrementAndGet();
        AtomicInteger threadNumber = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(threads),
                task -> {
                    Thread thread = new Thread(task, "onlyonce-redis-" + poolNumber + "-" + threadNumber.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        pool.allowCoreThreadTimeOut(true);
    }

    @Override
    public @Nullable Object evalsha(String operation, String sha, Answer answer, byte[][] keys, byte[][] args, long deadline) {
        byte[][] keysAndArgs = concat(keys, args);
        return call(operation, deadline, connection -> {
            requireOneSlot(operation, connection, keys);
            return connection.scriptingCommands().evalSha(sha, type(answer), keys.length, keysAndArgs);
        });
    }

    @Override
    public @Nullable Object eval(String operation, byte[] source, Answer answer, byte[][] keys, byte[][] args, long deadline) {
        byte[][] keysAndArgs = concat(keys, args);
        return call(operation, deadline, connection -> {
            requireOneSlot(operation, connection, keys);
            return connection.scriptingCommands().eval(source, type(answer), keys.length, keysAndArgs);
        });
    }

    @Override
    public boolean isConnected() {
        return connected.get();
    }

    /** Stops the pool's threads; the factory is the application's and stays as it is. */
    @Override
    public void close() {
        pool.shutdownNow();
    }

    private interface Command {
        @Nullable Object run(RedisConnection connection);
    }

    private @Nullable Object call(String operation, long deadline, Command command) {
        Callable<@Nullable Object> task = () -> {
            if (deadline - System.nanoTime() <= 0) {
                throw new TimeoutException("not sent: the call's budget had passed while it waited for a thread");
            }
            Object answer;
            try (RedisConnection connection = factory.getConnection()) {
                answer = command.run(connection);
            }
            if (connected.compareAndSet(false, true)) {
                try {
                    pool.execute(this::checkEvictionPolicy);
                } catch (RejectedExecutionException busy) {
                    LOG.log(System.Logger.Level.DEBUG, "OnlyOnce skipped the maxmemory-policy check: every Redis thread is busy");
                }
            }
            return normalise(answer);
        };
        Future<@Nullable Object> future;
        try {
            future = pool.submit(task);
        } catch (RejectedExecutionException e) {
            throw new StoreUnavailableException(operation + " (every Redis thread is waiting)", e);
        }
        try {
            return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new StoreUnavailableException(operation + " (no answer within its budget)", e);
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException(operation + " (interrupted)", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IllegalArgumentException refused) {
                throw refused;
            }
            throw failure(operation, e.getCause() == null ? e : e.getCause());
        }
    }

    /** On a Cluster connection, refuses keys of several slots before anything is sent. */
    private static void requireOneSlot(String operation, RedisConnection connection, byte[][] keys) {
        if (keys.length > 1 && connection instanceof RedisClusterConnection) {
            ClusterSlots.requireOneSlot(operation, keys);
        }
    }

    /**
     * An error reply of Redis that the runner acts on ({@link ScriptErrorReply#isActedOn}), wherever
     * the client put it among its exception's causes: a cause whose message starts with the reply's
     * code (Spring Data wraps the client's exception, whose message is the reply). A code elsewhere
     * in a message (a timeout that lists the command's arguments, say) is no reply: a timed-out
     * {@code EVALSHA} may have run, so it must never pass for {@code NOSCRIPT}. Anything else: the
     * store is unavailable.
     */
    private static RuntimeException failure(String operation, Throwable failure) {
        Throwable cause = failure;
        for (int depth = 0; cause != null && depth < 16; depth++, cause = cause.getCause()) {
            String message = cause.getMessage();
            if (message == null) {
                continue;
            }
            String reply = message.strip();
            if (ScriptErrorReply.isActedOn(reply)) {
                return new ScriptErrorReply(reply, failure);
            }
        }
        return new StoreUnavailableException(operation, failure);
    }

    /** Integers as {@link Long}, arrays as lists, bulk strings as {@code byte[]}, whatever the client answered. */
    private static @Nullable Object normalise(@Nullable Object answer) {
        if (answer instanceof Integer number) {
            return number.longValue();
        }
        if (answer instanceof List<?> list) {
            List<@Nullable Object> out = new ArrayList<>(list.size());
            for (Object element : list) {
                out.add(normalise(element));
            }
            return out;
        }
        return answer;
    }

    private static ReturnType type(Answer answer) {
        return answer == Answer.INTEGER ? ReturnType.INTEGER : ReturnType.MULTI;
    }

    private static byte[][] concat(byte[][] keys, byte[][] args) {
        byte[][] all = new byte[keys.length + args.length][];
        System.arraycopy(keys, 0, all, 0, keys.length);
        System.arraycopy(args, 0, all, keys.length, args.length);
        return all;
    }

    /** Once, after the first call that reached Redis: the warning when a server (a master of a Cluster) can evict. */
    private void checkEvictionPolicy() {
        try {
            Map<String, Map<String, String>> settings = new LinkedHashMap<>();
            try (RedisConnection connection = factory.getConnection()) {
                if (connection instanceof RedisClusterConnection cluster) {
                    for (RedisClusterNode node : cluster.clusterGetNodes()) {
                        if (node.isMaster()) {
                            try {
                                settings.put("Redis Cluster node " + node.getHost() + ":" + node.getPort(),
                                        map(cluster.serverCommands().getConfig(node, "maxmemory*")));
                            } catch (RuntimeException refused) {
                                // skipped, as RedisEvictionPolicy does
                            }
                        }
                    }
                } else {
                    settings.put("Redis", map(connection.serverCommands().getConfig("maxmemory*")));
                }
            }
            RedisEvictionPolicy.check(settings).ifPresent(evictionWarning);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "OnlyOnce could not read Redis's maxmemory-policy: {0}", e.toString());
        }
    }

    private static Map<String, String> map(@Nullable Properties properties) {
        Map<String, String> map = new LinkedHashMap<>();
        if (properties != null) {
            properties.forEach((name, value) -> map.put(String.valueOf(name), String.valueOf(value)));
        }
        return map;
    }
}
