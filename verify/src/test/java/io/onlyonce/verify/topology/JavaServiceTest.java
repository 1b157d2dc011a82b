package io.onlyonce.verify.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JavaServiceTest {

    /** A service whose health answers UP with its clock's time; "die" as its argument makes it fail at once. */
    private static final String SOURCE = """
            import com.sun.net.httpserver.HttpServer;
            import java.net.InetSocketAddress;
            import java.nio.charset.StandardCharsets;
            import java.time.Instant;

            public class Health {
                public static void main(String[] args) throws Exception {
                    if (args[0].equals("die")) {
                        System.err.println("boom: the configuration is wrong");
                        System.exit(3);
                    }
                    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[0])), 10);
                    server.createContext("/actuator/health", exchange -> {
                        byte[] body = ("{\\"status\\":\\"UP\\",\\"now\\":\\"" + Instant.now() + "\\"}")
                                .getBytes(StandardCharsets.UTF_8);
                        exchange.sendResponseHeaders(200, body.length);
                        exchange.getResponseBody().write(body);
                        exchange.close();
                    });
                    server.start();
                    System.out.println("started on " + args[0]);
                }
            }
            """;

    @TempDir
    static Path build;

    private static Path jar;

    @TempDir
    Path logs;

    private final List<JavaService> services = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @BeforeAll
    static void buildJar() throws IOException {
        Path source = build.resolve("Health.java");
        Files.writeString(source, SOURCE);
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        assertThat(compiler.run(null, null, null, "-d", build.toString(), source.toString())).isZero();
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "Health");
        jar = build.resolve("health.jar");
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest)) {
            out.putNextEntry(new JarEntry("Health.class"));
            out.write(Files.readAllBytes(build.resolve("Health.class")));
            out.closeEntry();
        }
    }

    @AfterEach
    void cleanUp() {
        services.forEach(JavaService::close);
    }

    @Test
    void theEnvironmentShiftsTheClockOnlyForAnOffset() {
        JavaService service = service("a", List.of("0"), Ports.free());
        assertThat(service.environment(Duration.ZERO)).containsExactlyEntriesOf(Map.of("SERVICE_ENV", "yes"));
        assertThat(service.environment(Duration.ofMinutes(10)))
                .containsEntry("SERVICE_ENV", "yes")
                .containsEntry("LD_PRELOAD", JavaService.FAKETIME_LIB)
                .containsEntry("FAKETIME", "+600s")
                .containsEntry("FAKETIME_DONT_FAKE_MONOTONIC", "1")
                .containsEntry("FAKETIME_FORCE_MONOTONIC_FIX", "0");
        assertThat(JavaService.clockEnvironment(Duration.ofSeconds(-90))).containsEntry("FAKETIME", "-90s");
        assertThat(service.command()).containsSubsequence("-Xmx384m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-jar", jar.toAbsolutePath().toString(), "0");
    }

    @Test
    void startsOnTimeThenWithItsClockTenMinutesAhead() throws Exception {
        int port = Ports.free();
        JavaService service = service("seckill-2", List.of(Integer.toString(port)), port);

        service.start(Duration.ZERO);
        assertThat(service.alive()).isTrue();
        assertThat(service.clockOffset()).isZero();
        assertThat(Duration.between(Instant.now(), serviceNow(port)).abs()).isLessThan(Duration.ofSeconds(30));
        long firstPid = service.pid();

        service.kill9();
        assertThat(service.alive()).isFalse();
        assertThat(ProcessHandle.of(firstPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();

        service.start(Duration.ofMinutes(10));
        assertThat(service.clockOffset()).isEqualTo(Duration.ofMinutes(10));
        Duration ahead = Duration.between(Instant.now(), serviceNow(port));
        assertThat(ahead).isBetween(Duration.ofMinutes(9), Duration.ofMinutes(11));

        assertThat(Files.readString(logs.resolve("seckill-2.log")))
                .contains("start seckill-2 clock offset PT0S")
                .contains("start seckill-2 clock offset PT10M")
                .contains("started on " + port);
    }

    @Test
    void aPausedServiceAnswersNothingUntilResumed() throws Exception {
        int port = Ports.free();
        JavaService service = service("seckill-1", List.of(Integer.toString(port)), port);
        service.start(Duration.ZERO);

        service.pause();
        assertThatThrownBy(() -> http.send(health(port, Duration.ofMillis(500)), HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(IOException.class);
        assertThat(service.alive()).isTrue();

        service.resume();
        assertThat(http.send(health(port, Duration.ofSeconds(5)), HttpResponse.BodyHandlers.ofString()).statusCode())
                .isEqualTo(200);

        service.stop();
        assertThat(service.alive()).isFalse();
    }

    @Test
    void aServiceThatDiesFailsAtOnceWithItsLog() {
        JavaService service = service("gateway", List.of("die"), Ports.free());
        long started = System.nanoTime();
        assertThatThrownBy(() -> service.start(Duration.ZERO))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("gateway exited 3")
                .hasMessageContaining("boom: the configuration is wrong");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(30));
    }

    private JavaService service(String name, List<String> args, int port) {
        JavaService service = new JavaService(name, jar, args, Map.of("SERVICE_ENV", "yes"), logs, port,
                "http://127.0.0.1:" + port + "/actuator/health");
        services.add(service);
        return service;
    }

    private Instant serviceNow(int port) throws Exception {
        String body = http.send(health(port, Duration.ofSeconds(5)), HttpResponse.BodyHandlers.ofString()).body();
        Matcher matcher = Pattern.compile("\"now\":\"([^\"]+)\"").matcher(body);
        assertThat(matcher.find()).as(body).isTrue();
        return Instant.parse(matcher.group(1));
    }

    private static HttpRequest health(int port, Duration timeout) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health")).timeout(timeout).GET().build();
    }
}
