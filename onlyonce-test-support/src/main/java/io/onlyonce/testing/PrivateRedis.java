package io.onlyonce.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A {@code redis-server} of the test's own on a free port, without persistence, that the test may
 * pause (SIGSTOP), resume (SIGCONT) or kill: never the shared server on 6379. The executable is
 * {@code redis-server} on the {@code PATH}.
 */
public final class PrivateRedis implements AutoCloseable {

    private final Process process;
    private final int port;

    private PrivateRedis(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    public static PrivateRedis start() throws Exception {
        return start(freePort());
    }

    /** A server on {@code port}: one that clients were pointed at before it existed, say. */
    public static PrivateRedis start(int port) throws Exception {
        Path directory = Files.createTempDirectory("onlyonce-gateway-redis-");
        Process process = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", directory.toString())
                .redirectErrorStream(true).redirectOutput(directory.resolve("redis.log").toFile()).start();
        for (int i = 0; i < 300; i++) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return new PrivateRedis(process, port);
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        process.destroyForcibly();
        throw new IllegalStateException("redis-server did not start on port " + port);
    }

    /** A port nothing listens on now. */
    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** {@code redis://127.0.0.1:<port>}. */
    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    public void pause() throws Exception {
        signal("STOP");
    }

    public void resume() throws Exception {
        signal("CONT");
    }

    @Override
    public void close() throws Exception {
        if (process.isAlive()) {
            resume();
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private void signal(String signal) throws Exception {
        new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start().waitFor();
    }
}
