package io.onlyonce.verify.topology;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A proxy in front of the gateway that loses every answer: it forwards the request, lets the server
 * answer into a sink, then closes the client's connection, so the client sees it end without a
 * response while the server did the work.
 */
public final class LossyProxy extends LoopbackListener {

    /** How long the answer must stay quiet after its first bytes before the connections are closed. */
    static final int QUIET_MILLIS = 300;

    private final int targetPort;
    private final AtomicLong dropped = new AtomicLong();

    private LossyProxy(int listenPort, int targetPort) throws IOException {
        super("lossy-proxy", listenPort);
        this.targetPort = targetPort;
    }

    /** Listens on 127.0.0.1:listenPort; each connection goes to 127.0.0.1:targetPort and loses its answer. */
    public static LossyProxy start(int listenPort, int targetPort) throws IOException {
        LossyProxy proxy = new LossyProxy(listenPort, targetPort);
        proxy.listen();
        return proxy;
    }

    /** The connections whose answer (some bytes of it at least) reached the proxy and was discarded. */
    public long dropped() {
        return dropped.get();
    }

    @Override
    void accepted(Socket client) {
        pool.execute(() -> handle(client));
    }

    private void handle(Socket client) {
        Socket upstream = new Socket();
        try {
            connect(client, upstream, targetPort);
            pool.execute(() -> Pipes.copy(client, upstream));
            if (sink(upstream)) {
                dropped.incrementAndGet();
            }
        } catch (IOException e) {
            // the upstream refused: the client loses the connection all the same
        } finally {
            end(client, upstream);
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
