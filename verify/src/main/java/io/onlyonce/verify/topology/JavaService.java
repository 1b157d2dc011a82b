package io.onlyonce.verify.topology;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A packaged Spring Boot jar run as its users run it ({@code java -jar}), optionally with its clock
 * shifted by libfaketime; started, killed, paused and stopped by the harness.
 */
public final class JavaService implements AutoCloseable {

    /** Debian's libfaketime, for this machine's architecture. */
    static final String FAKETIME_LIB = faketimeLibrary();

    private static String faketimeLibrary() {
        java.io.File[] arches = new java.io.File("/usr/lib").listFiles(f -> new java.io.File(f, "faketime/libfaketime.so.1").isFile());
        return arches == null || arches.length == 0 ? "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
                : arches[0].getAbsolutePath() + "/faketime/libfaketime.so.1";
    }
    private static final Duration START_TIMEOUT = Duration.ofSeconds(180);
    private static final List<String> JVM_OPTIONS = List.of("-Xmx384m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    private final String name;
    private final Path jar;
    private final List<String> args;
    private final Map<String, String> env;
    private final Path logDir;
    private final int port;
    private final String healthUrl;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private volatile ServerProcess process;
    private volatile Duration clockOffset = Duration.ZERO;

    /**
     * @param name the instance's name (its log is {@code logDir/name.log})
     * @param jar the packaged jar
     * @param args the program's arguments ({@code --server.port=...}, profiles, ...)
     * @param env environment variables added to this JVM's
     * @param port the port it serves on
     * @param healthUrl answered 200 with a body containing {@code UP} once it is ready
     */
    public JavaService(String name, Path jar, List<String> args, Map<String, String> env, Path logDir, int port,
            String healthUrl) {
        this.name = name;
        this.jar = jar;
        this.args = List.copyOf(args);
        this.env = Map.copyOf(env);
        this.logDir = logDir;
        this.port = port;
        this.healthUrl = healthUrl;
    }

    /**
     * Starts the jar ({@code clockOffset} zero: the real clock; otherwise libfaketime shifts it by
     * that many seconds) and waits up to 180 s for the health URL to answer UP; a process that dies
     * first fails at once, with its log's last lines.
     */
    public void start(Duration clockOffset) throws Exception {
        if (process != null && process.alive()) {
            throw new IllegalStateException(name + " is running already (pid " + process.pid() + ")");
        }
        Files.createDirectories(logDir);
        this.clockOffset = clockOffset;
        Path log = logDir.resolve(name + ".log");
        Files.writeString(log, "=== " + java.time.Instant.now() + " start " + name + " clock offset " + clockOffset
                + "\n", java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        process = ServerProcess.start(name, command(), environment(clockOffset), log);
        awaitHealthy();
    }

    /** The command line: this JVM's {@code java}, the fixed memory and JIT options, {@code -jar}, the arguments. */
    List<String> command() {
        List<String> command = new ArrayList<>();
        command.add(javaExecutable());
        command.addAll(JVM_OPTIONS);
        command.add("-jar");
        command.add(jar.toAbsolutePath().toString());
        command.addAll(args);
        return command;
    }

    /** The environment added for a start with {@code offset}: the service's own, plus libfaketime's when the offset is not zero. */
    Map<String, String> environment(Duration offset) {
        Map<String, String> full = new LinkedHashMap<>(env);
        full.putAll(clockEnvironment(offset));
        return full;
    }

    /** libfaketime's variables for a clock {@code offset} ahead (negative: behind); none for zero. */
    static Map<String, String> clockEnvironment(Duration offset) {
        if (offset.isZero()) {
            return Map.of();
        }
        long seconds = offset.getSeconds();
        Map<String, String> clock = new LinkedHashMap<>();
        clock.put("LD_PRELOAD", FAKETIME_LIB);
        clock.put("FAKETIME", (seconds >= 0 ? "+" : "-") + Math.abs(seconds) + "s");
        clock.put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
        // without it, libfaketime turns every timed wait on a monotonic clock into polling: a JVM's
        // parked threads then burn the CPU (a Spring Boot service starts five to ten times slower)
        clock.put("FAKETIME_FORCE_MONOTONIC_FIX", "0");
        return clock;
    }

    static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** SIGKILL; returns once the process is gone. */
    public void kill9() {
        if (process != null) {
            process.kill9();
        }
    }

    /** SIGSTOP. */
    public void pause() {
        if (process != null) {
            process.pause();
        }
    }

    /** SIGCONT. */
    public void resume() {
        if (process != null) {
            process.resume();
        }
    }

    /** SIGTERM (a graceful shutdown), SIGKILL after 30 s. */
    public void stop() {
        if (process != null) {
            process.stop();
        }
    }

    public boolean alive() {
        return process != null && process.alive();
    }

    public int port() {
        return port;
    }

    public String name() {
        return name;
    }

    /** The running process's pid, or -1 before the first start. */
    public long pid() {
        return process == null ? -1 : process.pid();
    }

    /** The clock offset of the last start. */
    public Duration clockOffset() {
        return clockOffset;
    }

    /** Same as {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    private void awaitHealthy() throws Exception {
        ServerProcess started = process;
        HttpRequest request = HttpRequest.newBuilder(URI.create(healthUrl)).timeout(Duration.ofSeconds(2)).GET().build();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            if (!started.alive()) {
                throw new IOException(name + " exited " + started.exitCode() + " before it was healthy; its log ends:\n"
                        + started.tail(30));
            }
            try {
                HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200 && response.body().contains("UP")) {
                    return;
                }
                last = response.statusCode() + " " + response.body();
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(250);
        }
        started.kill9();
        throw new IOException(name + " was not healthy within " + START_TIMEOUT + " (last: " + last
                + "); its log ends:\n" + started.tail(30));
    }
}
