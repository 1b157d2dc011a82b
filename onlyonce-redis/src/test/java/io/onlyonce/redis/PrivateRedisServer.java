package io.onlyonce.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * A {@code redis-server} process of a test's own, started on a free port so that the test can kill
 * it: the stores on it must then fail with {@code StoreUnavailableException}, never succeed
 * silently. Either a plain server or a one-node Cluster owning all 16384 slots. Its clients never
 * reconnect and reject commands while disconnected. The executable is {@code redis-server} on the
 * {@code PATH} unless the system property {@code onlyonce.redis.server} names another.
 */
final class PrivateRedisServer implements AutoCloseable {

    private static final Duration STARTUP = Duration.ofSeconds(15);

    private final Process process;
    private final Path directory;
    private final RedisURI uri;
    private final List<Runnable> closers = new ArrayList<>();

    private PrivateRedisServer(Process process, Path directory, int port) {
        this.process = process;
        this.directory = directory;
        this.uri = RedisURI.Builder.redis("127.0.0.1", port).withTimeout(RedisTestSettings.TIMEOUT).build();
    }

    /**
     * A plain server, answering PING.
     *
     * @param arguments further {@code redis-server} arguments, such as {@code "--rename-command", "CONFIG", ""}
     */
    static PrivateRedisServer start(String... arguments) throws Exception {
        return start(false, arguments);
    }

    /** A one-node Cluster whose only master owns every slot and reports {@code cluster_state:ok}. */
    static PrivateRedisServer startClusterNode() throws Exception {
        return start(true);
    }

    /** A plain server on {@code port}, such as one a client was pointed at before the server existed. */
    static PrivateRedisServer startOn(int port) throws Exception {
        return start(false, port);
    }

    private static PrivateRedisServer start(boolean cluster, String... arguments) throws Exception {
        return start(cluster, freePort(), arguments);
    }

    private static PrivateRedisServer start(boolean cluster, int port, String... arguments) throws Exception {
        Path directory = Files.createTempDirectory("onlyonce-redis-");
        List<String> command = new ArrayList<>(List.of(System.getProperty("onlyonce.redis.server", "redis-server"),
                "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", directory.toString()));
        command.addAll(List.of(arguments));
        if (cluster) {
            command.addAll(List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                    "--cluster-announce-ip", "127.0.0.1"));
        }
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(directory.resolve("redis.log").toFile())
                .start();
        PrivateRedisServer server = new PrivateRedisServer(process, directory, port);
        try {
            server.awaitReady(cluster);
        } catch (Exception | AssertionError e) {
            server.close();
            throw e;
        }
        return server;
    }

    /** Where the server listens, with the test clients' timeout. */
    RedisURI uri() {
        return uri;
    }

    /** Stops the server (SIGSTOP): connections stay open, nothing answers. */
    void pause() throws Exception {
        signal("STOP");
    }

    /** Lets a {@linkplain #pause() paused} server run again (SIGCONT). */
    void resume() throws Exception {
        signal("CONT");
    }

    private void signal(String signal) throws Exception {
        new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start().waitFor();
    }

    /** A connection that fails fast once the server is gone. */
    StatefulRedisConnection<byte[], byte[]> connect() {
        RedisClient client = RedisClient.create(uri);
        client.setOptions(RedisTestSettings.clientOptions(false));
        closers.add(() -> client.shutdown(Duration.ZERO, RedisTestSettings.TIMEOUT));
        StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
        closers.add(connection::close);
        return connection;
    }

    /** A connection as an ACL user that fails fast once the server is gone. */
    StatefulRedisConnection<byte[], byte[]> connectAs(String username, String password) {
        RedisURI user = RedisURI.builder(uri).withAuthentication(username, password.toCharArray()).build();
        RedisClient client = RedisClient.create(user);
        client.setOptions(RedisTestSettings.clientOptions(false));
        closers.add(() -> client.shutdown(Duration.ZERO, RedisTestSettings.TIMEOUT));
        StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
        closers.add(connection::close);
        return connection;
    }

    /** A Cluster connection (to a {@link #startClusterNode()} server) that fails fast once it is gone. */
    StatefulRedisClusterConnection<byte[], byte[]> connectCluster() {
        RedisClusterClient client = RedisClusterClient.create(uri);
        client.setOptions(RedisTestSettings.clusterClientOptions(false));
        closers.add(() -> client.shutdown(Duration.ZERO, RedisTestSettings.TIMEOUT));
        StatefulRedisClusterConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
        closers.add(connection::close);
        return connection;
    }

    /** Kills the server and waits until the process is gone. */
    void kill() {
        if (process.isAlive()) {
            try {
                resume();
            } catch (Exception e) {
                // a paused server is killed below all the same
            }
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** Kills the server, if still running, closes every client and removes its directory. */
    @Override
    public void close() throws IOException {
        kill();
        for (int i = closers.size() - 1; i >= 0; i--) {
            closers.get(i).run();
        }
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }

    private void awaitReady(boolean cluster) throws Exception {
        RedisClient admin = RedisClient.create(uri);
        admin.setOptions(RedisTestSettings.clientOptions(false));
        try {
            await("PING on " + uri, () -> {
                try (StatefulRedisConnection<String, String> connection = admin.connect()) {
                    return "PONG".equals(connection.sync().ping());
                } catch (RedisException notYet) {
                    return false;
                }
            });
            if (cluster) {
                try (StatefulRedisConnection<String, String> connection = admin.connect()) {
                    RedisCommands<String, String> commands = connection.sync();
                    commands.clusterAddSlots(IntStream.range(0, 16384).toArray());
                    await("cluster_state:ok on " + uri, () -> commands.clusterInfo().contains("cluster_state:ok"));
                }
            }
        } finally {
            admin.shutdown(Duration.ZERO, RedisTestSettings.TIMEOUT);
        }
    }

    private void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + STARTUP.toNanos();
        while (!condition.getAsBoolean()) {
            if (!process.isAlive()) {
                throw new AssertionError("redis-server exited; see " + directory.resolve("redis.log"));
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no " + what + " within " + STARTUP);
            }
            Thread.sleep(50);
        }
    }

    /** A port that is free, and so is its Cluster bus port (port + 10000). */
    static int freePort() throws IOException {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(20_000, 30_000);
            if (free(port) && free(port + 10_000)) {
                return port;
            }
        }
        throw new IOException("no free port pair found");
    }

    private static boolean free(int port) {
        try {
            new ServerSocket(port, 1, InetAddress.getLoopbackAddress()).close();
            return true;
        } catch (IOException inUse) {
            return false;
        }
    }
}
