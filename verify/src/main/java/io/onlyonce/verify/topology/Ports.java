package io.onlyonce.verify.topology;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;

/** Free loopback ports for the private servers and proxies; never one of the machine's shared servers' ports. */
public final class Ports {

    /** Redis, PostgreSQL, RabbitMQ (AMQP, distribution, management), epmd, NATS. */
    private static final Set<Integer> SHARED = Set.of(6379, 5432, 5672, 25672, 15672, 4369, 4222);

    private static final Set<Integer> HANDED_OUT = new HashSet<>();

    private Ports() {
    }

    /** A loopback port nothing listens on now, not handed out before by this JVM. */
    public static synchronized int free() {
        for (int i = 0; i < 100; i++) {
            int port;
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(false);
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                port = socket.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException("no free loopback port", e);
            }
            if (!SHARED.contains(port) && HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free loopback port after 100 tries");
    }
}
