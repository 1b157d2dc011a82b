package io.onlyonce.bench.minimal;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The least a Spring Boot webmvc service does per request: Tomcat, the dispatcher, one handler and
 * Jackson, no security, no database. {@code GET /ping} answers {@code {"username":"bench"}}, the
 * shape of the reference service's {@code GET /api/ping}.
 */
@SpringBootApplication
@RestController
public class MinimalWebApp {

    /**
     * The answer.
     *
     * @param username a fixed name
     */
    public record Pong(String username) {
    }

    @GetMapping("/ping")
    public Pong ping() {
        return new Pong("bench");
    }

    public static void main(String[] args) {
        SpringApplication.run(MinimalWebApp.class, args);
    }
}
