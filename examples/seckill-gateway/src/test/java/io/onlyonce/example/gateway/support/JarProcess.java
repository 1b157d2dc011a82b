package io.onlyonce.example.gateway.support;

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
 * A packaged Spring Boot application run as its users run it, {@code java -jar} in a process of its
 * own, output to {@code target/<name>.log}; started once its health endpoint answers UP.
 */
public final class JarProcess implements AutoCloseable {

    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final String name;
    private final List<String> command;
    private final Map<String, String> environment;
    private final Path log;
    private Process process;

    private JarProcess(String name, List<String> command, Map<String, String> environment, Path log) {
        this.name = name;
        this.command = command;
        this.environment = environment;
        this.log = log;
    }

    /** A free loopback port. */
    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /**
     * The jar of {@code module} (a directory next to this module, e.g. {@code ../seckill}) with
     * {@code arguments}; not started yet.
     */
    public static JarProcess of(String name, String module, String memory, List<String> arguments,
            Map<String, String> environment) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + memory, "-jar", jar(module).getAbsolutePath()));
        command.addAll(arguments);
        Path log = Path.of("target", name + ".log");
        Files.createDirectories(log.getParent());
        return new JarProcess(name, List.copyOf(command), Map.copyOf(environment), log);
    }

    /** Starts the process and waits until {@code healthUrl} answers UP. */
    public void start(String healthUrl) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().putAll(environment);
        process = builder.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + "; see " + log.toAbsolutePath());
            }
            try {
                HttpResponse<String> health = CLIENT.send(HttpRequest.newBuilder(URI.create(healthUrl))
                        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
                if (health.statusCode() == 200 && health.body().contains("UP")) {
                    return;
                }
            } catch (IOException starting) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException(name + " did not start within 180 s; see " + log.toAbsolutePath());
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static File jar(String module) {
        File[] jars = new File(module, "target").listFiles((dir, file) -> file.startsWith("onlyonce-example-")
                && file.endsWith(".jar") && !file.endsWith(".original"));
        if (jars == null || jars.length == 0) {
            throw new IllegalStateException("no packaged jar in " + module + "/target: run mvn verify (package builds it)");
        }
        return jars[0];
    }
}
