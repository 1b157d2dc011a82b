package io.onlyonce.verify.topology;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on 127.0.0.1:listenPort to 127.0.0.1:targetPort that the harness can cut (every
 * connection closed, new ones closed at once) and restore: a network partition.
 */
public final class TcpProxy implements AutoCloseable {

    private final ServerSocket server;
    private volatile int targetPort;
    private final ExecutorService pool;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final AtomicLong accepted = new AtomicLong();
    private volatile boolean cut;
    private volatile boolean closed;

    private TcpProxy(ServerSocket server, int targetPort) {
        this.server = server;
        this.targetPort = targetPort;
        this.pool = Pipes.daemonPool("tcp-proxy-" + server.getLocalPort());
    }

    /** Listens on 127.0.0.1:listenPort and forwards each connection to 127.0.0.1:targetPort. */
    public static TcpProxy start(int listenPort, int targetPort) throws IOException {
        ServerSocket server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress("127.0.0.1", listenPort), 200);
        TcpProxy proxy = new TcpProxy(server, targetPort);
        proxy.pool.execute(proxy::acceptLoop);
        return proxy;
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Closes every open connection, both sides; until {@link #restore()}, each new one is closed at once. */
    public void cut() {
        cut = true;
        for (Socket socket : open) {
            Pipes.closeQuietly(socket);
        }
        open.clear();
    }

    /**
     * Sends every new connection to 127.0.0.1:{@code port} from now on and closes the open ones, so
     * that a client's pooled connections move too.
     */
    public void retarget(int port) {
        targetPort = port;
        for (Socket socket : open) {
            Pipes.closeQuietly(socket);
        }
        open.clear();
    }

    /** The port new connections go to. */
    public int target() {
        return targetPort;
    }

    /** Lets new connections through again. */
    public void restore() {
        cut = false;
    }

    public boolean isCut() {
        return cut;
    }

    /** The connections accepted so far (cut ones included). */
    public long connections() {
        return accepted.get();
    }

    /** Stops listening and closes every connection. */
    @Override
    public void close() {
        closed = true;
        Pipes.closeQuietly(server);
        for (Socket socket : open) {
            Pipes.closeQuietly(socket);
        }
        open.clear();
        pool.shutdownNow();
    }

    private void acceptLoop() {
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
            accepted.incrementAndGet();
            if (cut) {
                Pipes.closeQuietly(client);
                continue;
            }
            pool.execute(() -> connect(client));
        }
    }

    private void connect(Socket client) {
        Socket upstream = new Socket();
        open.add(client);
        open.add(upstream);
        try {
            client.setTcpNoDelay(true);
            upstream.setTcpNoDelay(true);
            upstream.connect(new InetSocketAddress("127.0.0.1", targetPort), 5000);
        } catch (IOException e) {
            end(client, upstream);
            return;
        }
        if (cut || closed) {
            end(client, upstream);
            return;
        }
        pool.execute(() -> {
            Pipes.copy(upstream, client);
            end(client, upstream);
        });
        Pipes.copy(client, upstream);
        end(client, upstream);
    }

    private void end(Socket client, Socket upstream) {
        Pipes.closeQuietly(client);
        Pipes.closeQuietly(upstream);
        open.remove(client);
        open.remove(upstream);
    }
}
