package io.onlyonce.verify.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TcpProxyTest {

    @TempDir
    Path dir;

    private PrivateRedis redis;
    private TcpProxy proxy;

    @AfterEach
    void cleanUp() {
        if (proxy != null) {
            proxy.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void cutClosesOpenConnectionsAndRefusesNewOnesUntilRestored() throws Exception {
        redis = PrivateRedis.start(dir, Ports.free());
        int port = Ports.free();
        proxy = TcpProxy.start(port, redis.port());
        assertThat(proxy.port()).isEqualTo(port);
        assertThat(Resp.call(port, 2000, "PING")).isEqualTo("PONG");

        try (Socket held = new Socket("127.0.0.1", port)) {
            held.setSoTimeout(2000);
            held.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(readLine(held.getInputStream())).isEqualTo("+PONG");

            proxy.cut();

            assertThat(endsWithoutAnswer(held)).isTrue();
            assertThatThrownBy(() -> Resp.call(port, 1000, "PING")).isInstanceOf(IOException.class);
        }

        proxy.restore();
        assertThat(Resp.call(port, 2000, "PING")).isEqualTo("PONG");
        assertThat(proxy.connections()).isEqualTo(4);
        // the server itself was never touched
        assertThat(Resp.call(redis.port(), 2000, "PING")).isEqualTo("PONG");
    }

    /** True when the connection is closed or reset (EOF, an error) instead of answering a PING. */
    private static boolean endsWithoutAnswer(Socket socket) {
        try {
            socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            return socket.getInputStream().read() < 0;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int b;
        while ((b = in.read()) >= 0 && b != '\n') {
            if (b != '\r') {
                line.append((char) b);
            }
        }
        return line.toString();
    }

    @Test
    void retargetSendsNewConnectionsElsewhere() throws Exception {
        try (java.net.ServerSocket first = greeter("first"); java.net.ServerSocket second = greeter("second");
             TcpProxy proxy = TcpProxy.start(Ports.free(), first.getLocalPort())) {
            assertThat(greeting(proxy.port())).isEqualTo("first");
            proxy.retarget(second.getLocalPort());
            assertThat(proxy.target()).isEqualTo(second.getLocalPort());
            assertThat(greeting(proxy.port())).isEqualTo("second");
            assertThat(greeting(proxy.port())).isEqualTo("second");
        }
    }

    /** A server that writes its name to each connection and closes it. */
    private static java.net.ServerSocket greeter(String name) throws IOException {
        java.net.ServerSocket server = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                    s.getOutputStream().write(name.getBytes(StandardCharsets.UTF_8));
                } catch (IOException closed) {
                    return;
                }
            }
        });
        t.setDaemon(true);
        t.start();
        return server;
    }

    private static String greeting(int port) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(2_000);
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
