package io.onlyonce.messaging.kafka;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Kafka broker of one test alone, on free ports, run by {@code scripts/kafka/kafka.sh} with
 * {@code ONLYONCE_KAFKA_PORT} and {@code ONLYONCE_KAFKA_HOME}: the test may stop and start it
 * without disturbing the shared broker. The script is {@code -Dkafka.script}, default
 * {@code ../scripts/kafka/kafka.sh} from the module.
 */
final class PrivateBroker implements AutoCloseable {

    static final Path SCRIPT = Path.of(System.getProperty("kafka.script", "../scripts/kafka/kafka.sh"));

    final int port;
    final Path home;

    private PrivateBroker(int port, Path home) {
        this.port = port;
        this.home = home;
    }

    static PrivateBroker start() throws Exception {
        int port = freePortPair();
        PrivateBroker broker = new PrivateBroker(port, Files.createTempDirectory("onlyonce-kafka-" + port + "-"));
        broker.run("start");
        return broker;
    }

    String bootstrap() {
        return "127.0.0.1:" + port;
    }

    void stop() throws Exception {
        run("stop");
    }

    void restart() throws Exception {
        run("start");
    }

    private void run(String command) throws Exception {
        ProcessBuilder builder = new ProcessBuilder("bash", SCRIPT.toString(), command);
        builder.environment().put("ONLYONCE_KAFKA_PORT", Integer.toString(port));
        builder.environment().put("ONLYONCE_KAFKA_HOME", home.toString());
        builder.redirectErrorStream(true);
        builder.redirectOutput(home.resolve("script.log").toFile());
        Process process = builder.start();
        if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IllegalStateException("kafka.sh " + command + " failed: " + Files.readString(home.resolve("script.log")));
        }
    }

    /** A port whose next port (the controller's) is free too. */
    private static int freePortPair() throws IOException {
        for (int attempt = 0; attempt < 50; attempt++) {
            int port = 19_100 + 2 * ThreadLocalRandom.current().nextInt(400);
            try (ServerSocket broker = new ServerSocket(port); ServerSocket controller = new ServerSocket(port + 1)) {
                return port;
            } catch (IOException e) {
                // taken: try another
            }
        }
        throw new IOException("no free port pair");
    }

    @Override
    public void close() throws Exception {
        try {
            run("kill");
        } finally {
            try (Stream<Path> files = Files.walk(home)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }
}
