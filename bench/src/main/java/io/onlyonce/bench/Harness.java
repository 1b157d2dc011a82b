package io.onlyonce.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Closed-loop load with a fixed number of clients, and helpers to run the servers' own tools. */
final class Harness {

    private Harness() {
    }

    /** One client's operation; {@code client} and {@code sequence} make unique keys. */
    @FunctionalInterface
    interface Operation {
        void run(int client, long sequence) throws Exception;
    }

    /** Runs {@code op} in a loop on {@code clients} threads; returns completed operations per second. */
    static double throughput(int clients, int warmupSeconds, int seconds, Operation op) throws InterruptedException {
        LongAdder done = new LongAdder();
        LongAdder errors = new LongAdder();
        AtomicBoolean counting = new AtomicBoolean(false);
        AtomicBoolean running = new AtomicBoolean(true);
        CountDownLatch finished = new CountDownLatch(clients);
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            int client = c;
            Thread t = new Thread(() -> {
                long seq = 0;
                try {
                    while (running.get()) {
                        try {
                            op.run(client, seq++);
                            if (counting.get()) {
                                done.increment();
                            }
                        } catch (Exception e) {
                            errors.increment();
                        }
                    }
                } finally {
                    finished.countDown();
                }
            }, "bench-client-" + c);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        TimeUnit.SECONDS.sleep(warmupSeconds);
        counting.set(true);
        long start = System.nanoTime();
        TimeUnit.SECONDS.sleep(seconds);
        counting.set(false);
        long elapsed = System.nanoTime() - start;
        running.set(false);
        finished.await(30, TimeUnit.SECONDS);
        if (errors.sum() > 0) {
            System.out.printf("    (%d failed operations)%n", errors.sum());
        }
        return done.sum() / (elapsed / 1e9);
    }

    /** Runs a command, returns its standard output and error; fails on a non-zero exit. */
    static String exec(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + " failed:\n" + output);
        }
        return output;
    }

    /** The first number captured by {@code regex} in {@code text}. */
    static double number(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        if (!m.find()) {
            throw new IllegalStateException("no match for " + regex + " in:\n" + text);
        }
        return Double.parseDouble(m.group(1));
    }

    /** {@code --name=value} arguments. */
    static Map<String, String> args(String[] args) {
        Map<String, String> result = new HashMap<>();
        for (String arg : args) {
            if (arg.startsWith("--") && arg.contains("=")) {
                result.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
            }
        }
        return result;
    }

    /** The whole number given as {@code --name=...}, or {@code fallback}. */
    static int option(Map<String, String> options, String name, int fallback) {
        String value = options.get(name);
        return value == null ? fallback : Integer.parseInt(value);
    }

    static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
