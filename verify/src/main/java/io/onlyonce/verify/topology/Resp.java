package io.onlyonce.verify.topology;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** One Redis command over a fresh connection, for readiness checks; the reply as text (null for a nil bulk). */
final class Resp {

    private Resp() {
    }

    /** Sends {@code args} as one command to 127.0.0.1:port and returns the reply; an error reply throws. */
    static String call(int port, int timeoutMillis, String... args) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            OutputStream out = socket.getOutputStream();
            StringBuilder command = new StringBuilder("*").append(args.length).append("\r\n");
            for (String arg : args) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                command.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
            }
            out.write(command.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = new BufferedInputStream(socket.getInputStream());
            String line = line(in);
            switch (line.charAt(0)) {
                case '+':
                case ':':
                    return line.substring(1);
                case '-':
                    throw new IOException("Redis: " + line.substring(1));
                case '$': {
                    int length = Integer.parseInt(line.substring(1));
                    if (length < 0) {
                        return null;
                    }
                    byte[] body = in.readNBytes(length + 2);
                    return new String(body, 0, length, StandardCharsets.UTF_8);
                }
                default:
                    return line;
            }
        }
    }

    /** True when PING answers PONG within the timeout. */
    static boolean ping(int port, int timeoutMillis) {
        try {
            return "PONG".equals(call(port, timeoutMillis, "PING"));
        } catch (IOException e) {
            return false;
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("Redis closed the connection");
            }
            if (previous == '\r' && b == '\n') {
                byte[] bytes = buffer.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            buffer.write(b);
            previous = b;
        }
    }
}
