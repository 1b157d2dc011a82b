package io.onlyonce.example.seckill.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, for the requests {@code java.net.http} refuses to send: a CR or
 * NUL in a header, a 10 KB header, {@code ..;/} or a backslash in the path, an unknown method or
 * HTTP version. Sends the bytes as given and reads the answer until the server closes (every
 * request carries {@code Connection: close}).
 */
public final class RawHttp {

    private final int port;

    public RawHttp(int port) {
        this.port = port;
    }

    /**
     * An answer.
     *
     * @param status the status code
     * @param headers the headers, names in lower case
     * @param body the body, de-chunked
     */
    public record Answer(int status, Map<String, String> headers, String body) {

        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        @Override
        public String toString() {
            return status + " " + headers + " " + body;
        }
    }

    /** {@code method target version}, then {@code headerLines} (each without its CRLF), then an empty body. */
    public Answer send(String method, String target, String version, String... headerLines) {
        StringBuilder request = new StringBuilder().append(method).append(' ').append(target).append(' ').append(version)
                .append("\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
        for (String line : headerLines) {
            request.append(line).append("\r\n");
        }
        request.append("\r\n");
        return exchange(request.toString().getBytes(StandardCharsets.ISO_8859_1));
    }

    /** {@code POST target HTTP/1.1} with {@code headerLines} and {@code body} (ISO-8859-1, so any byte can be sent). */
    public Answer post(String target, String body, String... headerLines) {
        StringBuilder request = new StringBuilder().append("POST ").append(target).append(" HTTP/1.1")
                .append("\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
        for (String line : headerLines) {
            request.append(line).append("\r\n");
        }
        byte[] bytes = body.getBytes(StandardCharsets.ISO_8859_1);
        request.append("Content-Length: ").append(bytes.length).append("\r\n\r\n").append(body);
        return exchange(request.toString().getBytes(StandardCharsets.ISO_8859_1));
    }

    public Answer get(String target, String... headerLines) {
        return send("GET", target, "HTTP/1.1", headerLines);
    }

    private Answer exchange(byte[] request) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(15_000);
            OutputStream out = socket.getOutputStream();
            out.write(request);
            out.flush();
            return parse(readAll(socket.getInputStream()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                all.write(buffer, 0, n);
            }
        } catch (SocketTimeoutException | java.net.SocketException e) {
            // the server answered and reset the connection, or kept it open: take what came
        }
        return all.toByteArray();
    }

    private static Answer parse(byte[] raw) {
        String text = new String(raw, StandardCharsets.UTF_8);
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            throw new IllegalStateException("no HTTP answer: " + text);
        }
        String[] lines = text.substring(0, end).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.putIfAbsent(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
        }
        String body = text.substring(end + 4);
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = dechunk(body);
        }
        return new Answer(status, headers, body);
    }

    private static String dechunk(String chunked) {
        StringBuilder body = new StringBuilder();
        int at = 0;
        while (at < chunked.length()) {
            int lineEnd = chunked.indexOf("\r\n", at);
            if (lineEnd < 0) {
                break;
            }
            int size = Integer.parseInt(chunked.substring(at, lineEnd).trim(), 16);
            if (size == 0) {
                break;
            }
            body.append(chunked, lineEnd + 2, Math.min(chunked.length(), lineEnd + 2 + size));
            at = lineEnd + 2 + size + 2;
        }
        return body.toString();
    }
}
