package io.onlyonce.example.seckill.support;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The reference service as its users run it: {@code java -jar} of the packaged service in a process
 * of its own, on a free port, which a test can kill with SIGKILL ({@code kill -9}) and start again.
 * Its output goes to a log file under {@code target/}.
 */
public final class ServiceProcess implements AutoCloseable {

    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final List<String> arguments;
    private final Map<String, String> environment;
    private final Path log;
    private final int port;
    private Process process;

    private ServiceProcess(List<String> arguments, Map<String, String> environment, Path log, int port) {
        this.arguments = arguments;
        this.environment = environment;
        this.log = log;
        this.port = port;
    }

    /** A service with {@code arguments} (Spring Boot command-line properties), not started yet. */
    public static ServiceProcess of(String name, List<String> arguments, Map<String, String> environment) throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Path log = Path.of("target", "service-" + name + ".log");
        Files.createDirectories(log.getParent());
        return new ServiceProcess(List.copyOf(arguments), Map.copyOf(environment), log, port);
    }

    public int port() {
        return port;
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    /** Starts the service and waits until it answers {@code /actuator/health} with UP. */
    public void start() throws Exception {
        File jar = jar();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-XX:TieredStopAtLevel=1", "-jar", jar.getAbsolutePath(), "--server.port=" + port));
        command.addAll(arguments);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().putAll(environment);
        process = builder.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the service exited with " + process.exitValue() + "; see " + log.toAbsolutePath());
            }
            try {
                HttpResponse<String> health = CLIENT.send(HttpRequest.newBuilder(URI.create(baseUrl() + "/actuator/health"))
                        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
                if (health.statusCode() == 200 && health.body().contains("UP")) {
                    return;
                }
            } catch (IOException starting) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("the service did not start within 120 s; see " + log.toAbsolutePath());
    }

    /** SIGKILL: no shutdown hook, no graceful stop, as a crashed machine. */
    public void kill() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }

    private static File jar() {
        File[] jars = new File("target").listFiles((dir, name) -> name.startsWith("onlyonce-example-seckill")
                && name.endsWith(".jar") && !name.endsWith("-plain.jar") && !name.endsWith(".original"));
        if (jars == null || jars.length == 0) {
            throw new IllegalStateException("no packaged service in target/: run mvn verify (the jar is built by package)");
        }
        return jars[0];
    }
}
