package io.onlyonce.verify.topology;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A started OS process with its output appended to a log file; it is signalled by its pid. */
public final class ServerProcess implements AutoCloseable {

    private static final long STOP_WAIT_SECONDS = 30;

    private final String name;
    private final Process process;
    private final Path log;

    private ServerProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /** Starts {@code command} with {@code env} added to this JVM's environment, output and errors appended to {@code log}. */
    public static ServerProcess start(String name, List<String> command, Map<String, String> env, Path log)
            throws IOException {
        Path parent = log.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(env);
        builder.redirectErrorStream(true);
        builder.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        ServerProcess started = new ServerProcess(name, builder.start(), log);
        ShutdownKills.register(started, started::kill9);
        started.process.onExit().thenRun(() -> ShutdownKills.unregister(started));
        return started;
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public Path log() {
        return log;
    }

    public boolean alive() {
        return process.isAlive();
    }

    /** The exit code, or -1 while it runs. */
    public int exitCode() {
        return process.isAlive() ? -1 : process.exitValue();
    }

    /** SIGKILL to the process and everything it started; returns once it is gone. */
    public void kill9() {
        List<ProcessHandle> tree = tree();
        tree.forEach(ProcessHandle::destroyForcibly);
        awaitGone(tree, 10);
    }

    /** SIGTERM (and SIGCONT, should it be paused); after 30 s without exiting, SIGKILL to it and its children. */
    public void stop() {
        if (!process.isAlive()) {
            return;
        }
        List<ProcessHandle> tree = tree();
        process.toHandle().destroy();
        signal("CONT", process.pid());
        try {
            if (process.waitFor(STOP_WAIT_SECONDS, TimeUnit.SECONDS)) {
                // children it left behind (a wrapper script's server) go too
                awaitGone(tree, 5);
                killSurvivors(tree);
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        kill9();
    }

    /** SIGSTOP: the process stays, does nothing, and answers nothing. */
    public void pause() {
        signal("STOP", process.pid());
    }

    /** SIGCONT after {@link #pause()}. */
    public void resume() {
        signal("CONT", process.pid());
    }

    /** Same as {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    /** Waits up to {@code timeoutMillis} for the process to exit by itself; true when it has. */
    public boolean awaitExit(long timeoutMillis) throws InterruptedException {
        return process.waitFor(timeoutMillis, TimeUnit.MILLISECONDS);
    }

    /** The last {@code n} lines of the log, for error messages. */
    public String tail(int n) {
        return tail(log, n);
    }

    static String tail(Path file, int n) {
        try {
            List<String> lines = Files.readAllLines(file, java.nio.charset.StandardCharsets.ISO_8859_1);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Kills with SIGKILL whatever of {@code tree} still runs, and waits for it to go. */
    static void killSurvivors(List<ProcessHandle> tree) {
        List<ProcessHandle> alive = tree.stream().filter(ProcessHandle::isAlive).toList();
        alive.forEach(ProcessHandle::destroyForcibly);
        awaitGone(alive, 10);
    }

    /** The process and its descendants now. */
    List<ProcessHandle> tree() {
        List<ProcessHandle> tree = new ArrayList<>();
        tree.add(process.toHandle());
        process.toHandle().descendants().forEach(tree::add);
        return tree;
    }

    private static void awaitGone(List<ProcessHandle> handles, long seconds) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        for (ProcessHandle handle : handles) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            try {
                handle.onExit().get(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                // timed out or already gone
            }
        }
    }

    static void signal(String signal, long pid) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            kill.waitFor(10, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("kill -" + signal + " " + pid, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
