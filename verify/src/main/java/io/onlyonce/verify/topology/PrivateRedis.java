package io.onlyonce.verify.topology;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** A private redis-server on a loopback port, without persistence, that the harness kills, restarts and pauses. */
public final class PrivateRedis implements AutoCloseable {

    static final String REDIS_SERVER = "/usr/bin/redis-server";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

    private final Path dir;
    private final int port;
    private ServerProcess process;

    private PrivateRedis(Path dir, int port) {
        this.dir = dir;
        this.port = port;
    }

    /** Starts {@code redis-server --port P --bind 127.0.0.1 --save "" --appendonly no --dir dir} and waits for PING. */
    public static PrivateRedis start(Path dir, int port) throws Exception {
        Files.createDirectories(dir);
        PrivateRedis redis = new PrivateRedis(dir, port);
        redis.launch();
        return redis;
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process.pid();
    }

    /** kill -9, then a new empty server on the same port; returns once it answers PING. */
    public void restartEmpty() throws Exception {
        process.kill9();
        launch();
    }

    /** SIGSTOP: connections are accepted by the kernel, nothing is answered. */
    public void pause() {
        process.pause();
    }

    public void resume() {
        process.resume();
    }

    /** Stops the server (SIGTERM, then SIGKILL). */
    @Override
    public void close() {
        if (process != null) {
            process.stop();
        }
    }

    private void launch() throws Exception {
        List<String> command = List.of(REDIS_SERVER,
                "--port", Integer.toString(port),
                "--bind", "127.0.0.1",
                "--save", "",
                "--appendonly", "no",
                "--protected-mode", "no",
                "--daemonize", "no",
                "--dir", dir.toAbsolutePath().toString());
        process = ServerProcess.start("redis-" + port, command, Map.of(), dir.resolve("redis.log"));
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!Resp.ping(port, 500)) {
            if (!process.alive()) {
                throw new IOException("redis-server on port " + port + " exited " + process.exitCode() + ":\n"
                        + process.tail(30));
            }
            if (System.nanoTime() > deadline) {
                process.kill9();
                throw new IOException("redis-server on port " + port + " did not answer PING within "
                        + START_TIMEOUT + ":\n" + process.tail(30));
            }
            Thread.sleep(50);
        }
    }
}
