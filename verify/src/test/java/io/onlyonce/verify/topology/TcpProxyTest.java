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
}
