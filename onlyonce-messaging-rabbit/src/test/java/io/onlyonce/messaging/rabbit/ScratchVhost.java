package io.onlyonce.messaging.rabbit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory.ConfirmType;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/**
 * A RabbitMQ virtual host of its own for one test class, created with {@code rabbitmqctl} and
 * deleted (with everything in it) on close. Server: {@code ONLYONCE_RABBIT_HOST} (127.0.0.1),
 * {@code ONLYONCE_RABBIT_PORT} (5672), guest/guest; {@code rabbitmqctl} must work (as root).
 */
final class ScratchVhost implements AutoCloseable {

    static final String HOST = env("ONLYONCE_RABBIT_HOST", "127.0.0.1");
    static final int PORT = Integer.parseInt(env("ONLYONCE_RABBIT_PORT", "5672"));
    static final String RABBITMQCTL = env("ONLYONCE_RABBITMQCTL", "rabbitmqctl");

    final String name;
    private final List<CachingConnectionFactory> factories = new ArrayList<>();

    private ScratchVhost(String name) {
        this.name = name;
    }

    static ScratchVhost create(String label) {
        String name = "oo-test-" + label.toLowerCase(Locale.ROOT) + "-" + UUID.randomUUID().toString().substring(0, 8);
        rabbitmqctl("add_vhost", name);
        rabbitmqctl("set_permissions", "-p", name, "guest", ".*", ".*", ".*");
        return new ScratchVhost(name);
    }

    /** A factory with correlated confirms and returns, as the transport requires. */
    CachingConnectionFactory confirmingFactory() {
        CachingConnectionFactory factory = plainFactory();
        factory.setPublisherConfirmType(ConfirmType.CORRELATED);
        factory.setPublisherReturns(true);
        return factory;
    }

    CachingConnectionFactory plainFactory() {
        CachingConnectionFactory factory = new CachingConnectionFactory(HOST, PORT);
        factory.setUsername("guest");
        factory.setPassword("guest");
        factory.setVirtualHost(name);
        factory.setConnectionTimeout(5_000);
        factories.add(factory);
        return factory;
    }

    /** A mandatory template on a confirming factory. */
    RabbitTemplate confirmingTemplate() {
        RabbitTemplate template = new RabbitTemplate(confirmingFactory());
        template.setMandatory(true);
        return template;
    }

    RabbitAdmin admin() {
        return new RabbitAdmin(plainFactory());
    }

    @Override
    public void close() {
        factories.forEach(CachingConnectionFactory::destroy);
        rabbitmqctl("delete_vhost", name);
    }

    static String rabbitmqctl(String... args) {
        List<String> command = new ArrayList<>();
        command.add(RABBITMQCTL);
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish");
            }
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed (" + process.exitValue()
                        + "), rabbitmqctl must run as root: " + output);
            }
            return output;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + RABBITMQCTL + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static boolean portAnswers() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(HOST, PORT), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Waits until {@code condition} holds, failing after {@code timeout} with {@code what}. */
    static void await(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
