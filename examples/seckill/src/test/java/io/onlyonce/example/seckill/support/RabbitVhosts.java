package io.onlyonce.example.seckill.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * RabbitMQ virtual hosts of the tests' own, on the shared broker ({@code ONLYONCE_RABBIT_HOST},
 * default 127.0.0.1, port {@code ONLYONCE_RABBIT_PORT}, default 5672, guest/guest): made and deleted
 * with {@code rabbitmqctl} (as the test command runs it, as root), so no two runs share a queue.
 */
public final class RabbitVhosts {

    private RabbitVhosts() {
    }

    public static String host() {
        return env("ONLYONCE_RABBIT_HOST", "127.0.0.1");
    }

    public static int port() {
        return Integer.parseInt(env("ONLYONCE_RABBIT_PORT", "5672"));
    }

    /** A new, empty virtual host that guest may use. */
    public static String create() {
        String name = "oo-seckill-" + UUID.randomUUID().toString().substring(0, 8);
        rabbitmqctl("add_vhost", name);
        rabbitmqctl("set_permissions", "-p", name, "guest", ".*", ".*", ".*");
        return name;
    }

    /** Deletes {@code name} and everything in it. */
    public static void delete(String name) {
        rabbitmqctl("delete_vhost", name);
    }

    /** Runs {@code rabbitmqctl}, failing on a non-zero exit. */
    public static String rabbitmqctl(String... args) {
        List<String> command = new ArrayList<>();
        command.add(env("ONLYONCE_RABBITMQCTL", "rabbitmqctl"));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
            }
            return output;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String env(String key, String fallback) {
        String value = System.getProperty(key);
        if (value == null || value.isBlank()) {
            value = System.getenv(key);
        }
        return value == null || value.isBlank() ? fallback : value;
    }
}
