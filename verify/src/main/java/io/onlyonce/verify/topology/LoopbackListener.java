package io.onlyonce.verify.topology;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;

/**
 * What both proxies share: a listening socket on 127.0.0.1, a daemon pool that accepts and serves
 * its connections, and the sockets still open, closed together on {@link #close()}.
 */
abstract class LoopbackListener implements AutoCloseable {

    private final ServerSocket server;
    /** The pool that accepts connections and copies their bytes. */
    final ExecutorService pool;
    /** Every socket of a connection still being served, on either side. */
    final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    LoopbackListener(String name, int listenPort) throws IOException {
        ServerSocket socket = new ServerSocket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress("127.0.0.1", listenPort), 200);
        this.server = socket;
        this.pool = Pipes.daemonPool(name + "-" + socket.getLocalPort());
    }

    /** Starts accepting; each connection is handed to {@link #accepted(Socket)} on the pool. */
    final void listen() {
        pool.execute(() -> {
            while (!closed) {
                Socket client;
                try {
                    client = server.accept();
                } catch (IOException e) {
                    if (closed) {
                        return;
                    }
                    continue;
                }
                accepted(client);
            }
        });
    }

    /** A connection came in (called on the accepting thread: hand the work to {@link #pool}). */
    abstract void accepted(Socket client);

    public int port() {
        return server.getLocalPort();
    }

    boolean closed() {
        return closed;
    }

    /** Closes every open connection, both sides. */
    final void closeOpen() {
        for (Socket socket : open) {
            Pipes.closeQuietly(socket);
        }
        open.clear();
    }

    /** Connects {@code upstream} to 127.0.0.1:{@code port}, both sockets counted as open. */
    final void connect(Socket client, Socket upstream, int port) throws IOException {
        open.add(client);
        open.add(upstream);
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        upstream.connect(new InetSocketAddress("127.0.0.1", port), 5000);
    }

    /** Closes both sockets of a connection. */
    final void end(Socket client, Socket upstream) {
        Pipes.closeQuietly(client);
        Pipes.closeQuietly(upstream);
        open.remove(client);
        open.remove(upstream);
    }

    /** Stops listening and closes every connection. */
    @Override
    public void close() {
        closed = true;
        Pipes.closeQuietly(server);
        closeOpen();
        pool.shutdownNow();
    }
}
