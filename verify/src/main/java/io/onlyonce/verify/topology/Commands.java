package io.onlyonce.verify.topology;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a short command to its end and hands back its output; a non-zero exit or a timeout throws. */
final class Commands {

    private Commands() {
    }

    /** The result of a command: its exit code and its output (stdout and stderr together). */
    record Result(int exitCode, String output) {
    }

    static String run(List<String> command, Map<String, String> env, Path workDir, Duration timeout)
            throws IOException, InterruptedException {
        Result result = tryRun(command, env, workDir, timeout);
        if (result.exitCode() != 0) {
            throw new IOException(String.join(" ", command) + " exited " + result.exitCode() + ":\n" + result.output());
        }
        return result.output();
    }

    static Result tryRun(List<String> command, Map<String, String> env, Path workDir, Duration timeout)
            throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(env);
        builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        if (workDir != null) {
            builder.directory(workDir.toFile());
        }
        Process process = builder.start();
        // read on another thread so a chatty command cannot block on a full pipe
        java.util.concurrent.CompletableFuture<String> output = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "(output unreadable: " + e.getMessage() + ")";
            }
        });
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not finish within " + timeout);
        }
        String text;
        try {
            text = output.get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            text = "(output unreadable)";
        }
        return new Result(process.exitValue(), text);
    }
}
