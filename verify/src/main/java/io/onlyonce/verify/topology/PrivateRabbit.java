package io.onlyonce.verify.topology;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A private RabbitMQ node (its own node name, AMQP and distribution ports, data directory and
 * Erlang cookie) on loopback; durable queues and persistent messages survive its restart.
 */
public final class PrivateRabbit implements AutoCloseable {

    static final String BIN = "/usr/lib/rabbitmq/bin/";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final Path dir;
    private final int port;
    private final int distPort;
    private final String node;
    private ServerProcess process;

    private PrivateRabbit(Path dir, int port, String node) {
        this.dir = dir.toAbsolutePath();
        this.port = port;
        this.distPort = Ports.free();
        this.node = node.contains("@") ? node : node + "@localhost";
    }

    /**
     * Starts the node {@code nodeName@localhost} with AMQP on 127.0.0.1:port (guest/guest allowed
     * over loopback), no plugins, and waits until an AMQP connection opens.
     */
    public static PrivateRabbit start(Path dir, int port, String nodeName) throws Exception {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("plugins"), "[].\n");
        Files.writeString(dir.resolve("rabbitmq.conf"),
                "listeners.tcp.default = 127.0.0.1:" + port + "\nloopback_users = none\n");
        PrivateRabbit rabbit = new PrivateRabbit(dir, port, nodeName);
        try {
            rabbit.startAgain();
        } catch (Exception e) {
            rabbit.close();
            throw e;
        }
        return rabbit;
    }

    public int port() {
        return port;
    }

    /** The full node name, {@code name@localhost}. */
    public String node() {
        return node;
    }

    /** A connection factory for this node (guest/guest). */
    public ConnectionFactory connectionFactory() {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost("127.0.0.1");
        factory.setPort(port);
        factory.setUsername("guest");
        factory.setPassword("guest");
        factory.setConnectionTimeout(3000);
        factory.setHandshakeTimeout(5000);
        factory.setAutomaticRecoveryEnabled(false);
        return factory;
    }

    /** {@code rabbitmqctl stop}, then start again and wait for a connection. */
    public void restart() throws Exception {
        stop();
        startAgain();
    }

    /** {@code rabbitmqctl stop}; waits until the node's process is gone. */
    public void stop() throws Exception {
        if (process == null || !process.alive()) {
            return;
        }
        List<ProcessHandle> tree = process.tree();
        Commands.Result result = ctl(List.of("stop"), Duration.ofSeconds(60));
        if (result.exitCode() != 0 || !process.awaitExit(30_000)) {
            process.stop();
        }
        // the server script has exited; make sure the Erlang VM it started has too
        ServerProcess.killSurvivors(tree);
    }

    /** Starts the node (its data directory as it was left) and waits until an AMQP connection opens. */
    public void startAgain() throws Exception {
        if (process != null && process.alive()) {
            return;
        }
        process = ServerProcess.start("rabbit-" + port, List.of(BIN + "rabbitmq-server"), env(),
                dir.resolve("rabbitmq-server.log"));
        ConnectionFactory factory = connectionFactory();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            if (!process.alive()) {
                throw new IOException("RabbitMQ node " + node + " exited " + process.exitCode() + ":\n"
                        + process.tail(30));
            }
            try (Connection connection = factory.newConnection("verify-ready")) {
                if (connection.isOpen()) {
                    return;
                }
            } catch (Exception e) {
                last = e;
            }
            Thread.sleep(200);
        }
        process.kill9();
        throw new IOException("RabbitMQ node " + node + " accepted no AMQP connection within " + START_TIMEOUT
                + ":\n" + process.tail(30), last);
    }

    /** The message count a passive declare of {@code queue} reports; 0 when there is no such queue. */
    public long messages(String queue) throws Exception {
        try (Connection connection = connectionFactory().newConnection("verify-count")) {
            Channel channel = connection.createChannel();
            try {
                return channel.queueDeclarePassive(queue).getMessageCount();
            } catch (IOException e) {
                if (isNotFound(e)) {
                    return 0;
                }
                throw e;
            }
        }
    }

    /** The names of every queue on the node ({@code rabbitmqctl list_queues name}). */
    public List<String> queues() throws Exception {
        Commands.Result result = ctl(List.of("list_queues", "-q", "--no-table-headers", "name"),
                Duration.ofSeconds(60));
        if (result.exitCode() != 0) {
            throw new IOException("rabbitmqctl list_queues on " + node + " failed:\n" + result.output());
        }
        List<String> names = new ArrayList<>();
        for (String line : result.output().split("\n")) {
            String name = line.strip();
            if (!name.isEmpty()) {
                names.add(name);
            }
        }
        return names;
    }

    /** {@code rabbitmqctl stop}, or SIGKILL to the node when that fails. */
    @Override
    public void close() {
        try {
            stop();
        } catch (Exception e) {
            if (process != null) {
                process.kill9();
            }
        }
    }

    private Commands.Result ctl(List<String> args, Duration timeout) throws Exception {
        List<String> command = new ArrayList<>(List.of(BIN + "rabbitmqctl", "-n", node));
        command.addAll(args);
        return Commands.tryRun(command, Map.of("HOME", dir.toString(), "RABBITMQ_NODENAME", node), dir, timeout);
    }

    private Map<String, String> env() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("RABBITMQ_NODENAME", node);
        env.put("RABBITMQ_NODE_PORT", Integer.toString(port));
        env.put("RABBITMQ_DIST_PORT", Integer.toString(distPort));
        env.put("RABBITMQ_MNESIA_BASE", dir.resolve("mnesia").toString());
        env.put("RABBITMQ_LOG_BASE", dir.resolve("log").toString());
        env.put("RABBITMQ_ENABLED_PLUGINS_FILE", dir.resolve("plugins").toString());
        env.put("RABBITMQ_CONFIG_FILE", dir.resolve("rabbitmq.conf").toString());
        env.put("HOME", dir.toString());
        return env;
    }

    private static boolean isNotFound(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String message = t.getMessage();
            if (message != null && message.contains("NOT_FOUND")) {
                return true;
            }
        }
        return false;
    }
}
