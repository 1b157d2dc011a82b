package io.onlyonce.verify.topology;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A proxy in front of the gateway that loses every answer: it forwards the request, lets the server
 * answer into a sink, then closes the client's connection, so the client sees it end without a
 * response while the server did the work.
 */
public final class LossyProxy implements AutoCloseable {

    /** How long the answer must stay quiet after its first bytes before the connections are closed. */
    static final int QUIET_MILLIS = 300;

    private final ServerSocket server;
    private final int targetPort;
    private final ExecutorService pool;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final AtomicLong dropped = new AtomicLong();
    private volatile boolean closed;

    private LossyProxy(ServerSocket server, int targetPort) {
        this.server = server;
        this.targetPort = targetPort;
        this.pool = Pipes.daemonPool("lossy-proxy-" + server.getLocalPort());
    }

    /** Listens on 127.0.0.1:listenPort; each connection goes to 127.0.0.1:targetPort and loses its answer. */
    public static LossyProxy start(int listenPort, int targetPort) throws IOException {
        ServerSocket server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress("127.0.0.1", listenPort), 200);
        LossyProxy proxy = new LossyProxy(server, targetPort);
        proxy.pool.execute(proxy::acceptLoop);
        return proxy;
    }

    public int port() {
        return server.getLocalPort();
    }

    /** The connections whose answer (some bytes of it at least) reached the proxy and was discarded. */
    public long dropped() {
        return dropped.get();
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
            pool.execute(() -> handle(client));
        }
    }

    private void handle(Socket client) {
        Socket upstream = new Socket();
        open.add(client);
        open.add(upstream);
        try {
            client.setTcpNoDelay(true);
            upstream.setTcpNoDelay(true);
            upstream.connect(new InetSocketAddress("127.0.0.1", targetPort), 5000);
            pool.execute(() -> Pipes.copy(client, upstream));
            if (sink(upstream)) {
                dropped.incrementAndGet();
            }
        } catch (IOException e) {
            // the upstream refused: the client loses the connection all the same
        } finally {
            Pipes.closeQuietly(client);
            Pipes.closeQuietly(upstream);
            open.remove(client);
            open.remove(upstream);
        }
    }

    /** Reads the answer into nothing until QUIET_MILLIS pass without bytes after the first, or it ends; true when bytes came. */
    private static boolean sink(Socket upstream) throws IOException {
        InputStream in = upstream.getInputStream();
        byte[] buffer = new byte[16 * 1024];
        boolean received = false;
        while (true) {
            int n;
            try {
                n = in.read(buffer);
            } catch (SocketTimeoutException e) {
                return received;
            } catch (IOException e) {
                return received;
            }
            if (n < 0) {
                return received;
            }
            if (!received) {
                received = true;
                upstream.setSoTimeout(QUIET_MILLIS);
            }
        }
    }
}
