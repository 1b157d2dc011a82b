package io.onlyonce.verify.topology;

import java.io.IOException;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on 127.0.0.1:listenPort to 127.0.0.1:targetPort that the harness can cut (every
 * connection closed, new ones closed at once) and restore: a network partition.
 */
public final class TcpProxy extends LoopbackListener {

    private final AtomicLong accepted = new AtomicLong();
    private volatile int targetPort;
    private volatile boolean cut;

    private TcpProxy(int listenPort, int targetPort) throws IOException {
        super("tcp-proxy", listenPort);
        this.targetPort = targetPort;
    }

    /** Listens on 127.0.0.1:listenPort and forwards each connection to 127.0.0.1:targetPort. */
    public static TcpProxy start(int listenPort, int targetPort) throws IOException {
        TcpProxy proxy = new TcpProxy(listenPort, targetPort);
        proxy.listen();
        return proxy;
    }

    /** Closes every open connection, both sides; until {@link #restore()}, each new one is closed at once. */
    public void cut() {
        cut = true;
        closeOpen();
    }

    /**
     * Sends every new connection to 127.0.0.1:{@code port} from now on and closes the open ones, so
     * that a client's pooled connections move too.
     */
    public void retarget(int port) {
        targetPort = port;
        closeOpen();
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

    @Override
    void accepted(Socket client) {
        accepted.incrementAndGet();
        if (cut) {
            Pipes.closeQuietly(client);
            return;
        }
        pool.execute(() -> forward(client));
    }

    private void forward(Socket client) {
        Socket upstream = new Socket();
        try {
            connect(client, upstream, targetPort);
        } catch (IOException e) {
            end(client, upstream);
            return;
        }
        if (cut || closed()) {
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
}
