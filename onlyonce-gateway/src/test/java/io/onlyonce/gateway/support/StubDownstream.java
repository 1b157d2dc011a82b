package io.onlyonce.gateway.support;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

/**
 * The service behind the gateway in module tests: a JDK HTTP server on a free loopback port that
 * records every request it receives (method, path with query, headers, body bytes) and answers
 * {@code 201} with a small JSON body.
 */
public final class StubDownstream implements AutoCloseable {

    /**
     * One request as the downstream received it.
     *
     * @param method the method
     * @param uri the path and query as sent
     * @param headers the headers, names in lower case
     * @param body the body bytes
     */
    public record Received(String method, String uri, Map<String, List<String>> headers, byte[] body) {
    }

    private final HttpServer server;
    private final List<Received> received = new CopyOnWriteArrayList<>();

    private StubDownstream(HttpServer server) {
        this.server = server;
    }

    public static StubDownstream start() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 100);
        StubDownstream stub = new StubDownstream(server);
        server.createContext("/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            Map<String, List<String>> headers = new java.util.TreeMap<>();
            exchange.getRequestHeaders().forEach((name, values) -> headers.put(name.toLowerCase(java.util.Locale.ROOT), values));
            stub.received.add(new Received(exchange.getRequestMethod(), exchange.getRequestURI().toString(), headers, body));
            byte[] answer = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(201, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.setExecutor(Executors.newFixedThreadPool(16));
        server.start();
        return stub;
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Every request received so far, in order. */
    public List<Received> received() {
        return List.copyOf(received);
    }

    public void clear() {
        received.clear();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
