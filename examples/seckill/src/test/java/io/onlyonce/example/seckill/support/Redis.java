package io.onlyonce.example.seckill.support;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.springframework.test.context.DynamicPropertyRegistry;

/** Redis for the integration tests: a random key prefix on the shared server, or a private server. */
public final class Redis {

    private Redis() {
    }

    public static String sharedHost() {
        return System.getenv().getOrDefault("SECKILL_IT_REDIS_HOST", "127.0.0.1");
    }

    public static int sharedPort() {
        return Integer.parseInt(System.getenv().getOrDefault("SECKILL_IT_REDIS_PORT", "6379"));
    }

    /** A key prefix no other test class uses. */
    public static String newPrefix() {
        return "oo:seckill-it:" + UUID.randomUUID().toString().substring(0, 8) + ":";
    }

    /** Points the service's OnlyOnce stores at the shared server, under {@code prefix}. */
    public static void useShared(DynamicPropertyRegistry registry, String prefix) {
        registry.add("onlyonce.redis.key-prefix", () -> prefix);
        registry.add("seckill.fast-path.key-prefix", () -> prefix + "fast:");
        registry.add("spring.data.redis.host", Redis::sharedHost);
        registry.add("spring.data.redis.port", Redis::sharedPort);
    }

    /** Deletes every key under {@code prefix} on the shared server (never FLUSHALL there). */
    public static void deleteKeys(String prefix) {
        RedisClient client = RedisClient.create(RedisURI.create(sharedHost(), sharedPort()));
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page = connection.sync().scan(cursor, ScanArgs.Builder.matches(prefix + "*").limit(500));
                if (!page.getKeys().isEmpty()) {
                    connection.sync().del(page.getKeys().toArray(String[]::new));
                }
                cursor = page;
            } while (!cursor.isFinished());
        } finally {
            client.shutdown();
        }
    }

    /** A redis-server of one test class alone, on a free port, that may be flushed at will. */
    public static final class Private implements AutoCloseable {

        private final Process process;
        private final int port;
        private final @Nullable Path appendOnlyDir;

        private Private(Process process, int port, @Nullable Path appendOnlyDir) {
            this.process = process;
            this.port = port;
            this.appendOnlyDir = appendOnlyDir;
        }

        public static Private start() {
            return start(freePort(), null);
        }

        /** A server started for the service under test: its address in {@code spring.data.redis.*}. */
        public static Private startFor(DynamicPropertyRegistry registry) {
            Private server = start();
            registry.add("spring.data.redis.host", () -> "127.0.0.1");
            registry.add("spring.data.redis.port", server::port);
            return server;
        }

        /** Resumes the server if paused, then stops it: the end of a test class that pauses it. */
        public void resumeAndClose() throws IOException, InterruptedException {
            signal("CONT");
            close();
        }

        /**
         * A redis-server that writes every command to an append-only file in a directory of its own
         * before answering ({@code appendfsync always}): a restart keeps everything it acknowledged.
         */
        public static Private startPersistent() throws IOException {
            return start(freePort(), Files.createTempDirectory("seckill-redis-aof"));
        }

        /** A redis-server on {@code port}: without persistence (a restart loses everything) unless {@code appendOnlyDir}. */
        static Private start(int port, @Nullable Path appendOnlyDir) {
            try {
                File log = File.createTempFile("seckill-redis-" + port, ".log");
                List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port), "--bind",
                        "127.0.0.1", "--save", "", "--protected-mode", "no"));
                command.addAll(appendOnlyDir == null ? List.of("--appendonly", "no")
                        : List.of("--appendonly", "yes", "--appendfsync", "always", "--dir", appendOnlyDir.toString()));
                Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log).start();
                long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
                while (!accepts(port)) {
                    if (!process.isAlive() || System.nanoTime() > deadline) {
                        process.destroyForcibly();
                        throw new IllegalStateException("redis-server did not start on port " + port + " (see " + log + ")");
                    }
                    LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
                }
                return new Private(process, port, appendOnlyDir);
            } catch (IOException e) {
                throw new IllegalStateException("cannot start redis-server (is it installed?)", e);
            }
        }

        public int port() {
            return port;
        }

        /** Stops (SIGSTOP) or resumes (SIGCONT) this server: a paused Redis that accepts connections and never answers. */
        public void signal(String signal) throws IOException, InterruptedException {
            new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start().waitFor();
        }

        /**
         * Kills this server (SIGKILL) and starts it again on the same port: empty, or, if it was
         * started persistent, with everything it had acknowledged.
         */
        public Private restart() throws InterruptedException {
            kill();
            return startAgain();
        }

        /** Kills this server (SIGKILL) and waits until it is gone: a stopped Redis, connections refused. */
        public void kill() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }

        /** Starts a server on this one's port again, after {@link #kill()}: empty unless started persistent. */
        public Private startAgain() {
            return start(port, appendOnlyDir);
        }

        @Override
        public void close() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }

        private static boolean accepts(int port) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return true;
            } catch (IOException e) {
                return false;
            }
        }

        private static int freePort() {
            try (ServerSocket socket = new ServerSocket(0)) {
                return socket.getLocalPort();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
