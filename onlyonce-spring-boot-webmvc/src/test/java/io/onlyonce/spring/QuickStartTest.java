package io.onlyonce.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.example.orders.OrderApplication;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The quick start of README.md and docs/spring-boot.md, exactly as written: {@code OrderApplication}
 * and its properties are the single source of both documents' snippets, and they start and protect
 * the (package-private) handler on the first try.
 */
class QuickStartTest {

    static final Path MODULE = Path.of("").toAbsolutePath();
    static final Path APPLICATION = MODULE.resolve("src/test/java/com/example/orders/OrderApplication.java");
    static final Path PROPERTIES = MODULE.resolve("src/test/resources/quickstart/application.properties");

    @Test
    void bothDocumentsShowTheApplicationAndItsPropertiesVerbatim() throws IOException {
        for (Path document : new Path[] {MODULE.resolve("../README.md"), MODULE.resolve("../docs/spring-boot.md")}) {
            String text = Files.readString(document, StandardCharsets.UTF_8);
            assertThat(text).as(document.toString()).contains("```java\n" + Files.readString(APPLICATION) + "```\n");
            assertThat(text).as(document.toString()).contains("```properties\n" + Files.readString(PROPERTIES) + "```\n");
        }
    }

    @Test
    void theQuickStartStartsAndReplaysTheSecondRequestWithTheSameKey() throws Exception {
        String[] arguments = {"--server.port=0", "--spring.config.location=classpath:quickstart/application.properties",
            // this module's tests have Spring Security on the classpath; the quick start does not
            "--spring.autoconfigure.exclude="
                    + "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration,"
                    + "org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration,"
                    + "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration,"
                    + "org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration,"
                    + "org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration"};
        try (ConfigurableApplicationContext context = new org.springframework.boot.SpringApplication(OrderApplication.class)
                .run(arguments)) {
            int port = ((WebServerApplicationContext) context).getWebServer().getPort();
            String key = UUID.randomUUID().toString();

            HttpResponse<String> first = post(port, key, "{\"item\":\"phone\",\"quantity\":1}");
            HttpResponse<String> retry = post(port, key, "{\"item\":\"phone\",\"quantity\":1}");
            HttpResponse<String> another = post(port, UUID.randomUUID().toString(), "{\"item\":\"phone\",\"quantity\":1}");

            assertThat(first.statusCode()).isEqualTo(201);
            assertThat(first.body()).isEqualTo("{\"id\":1,\"item\":\"phone\",\"quantity\":1}");
            assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
            assertThat(retry.statusCode()).isEqualTo(201);
            assertThat(retry.body()).isEqualTo(first.body());
            assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertThat(another.body()).as("the handler ran once for the first key").contains("\"id\":2");
        }
    }

    private static HttpResponse<String> post(int port, String key, String json) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders"))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build(), HttpResponse.BodyHandlers.ofString());
    }
}
