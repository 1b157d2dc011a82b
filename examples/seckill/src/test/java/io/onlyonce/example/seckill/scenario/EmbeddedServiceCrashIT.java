package io.onlyonce.example.seckill.scenario;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import java.util.UUID;

/**
 * The crash scenario on the embedded default: an H2 file database (as application.yml opens it,
 * with WRITE_DELAY=0 so an answered commit survives the kill; plus AUTO_SERVER so the test reads it
 * while the service runs) and the in-process transport, whose messages die with the process and are
 * sent again by the outbox relay after the restart.
 */
class EmbeddedServiceCrashIT extends AbstractServiceCrashScenario {

    private final Path directory;
    private final String url;

    EmbeddedServiceCrashIT() throws Exception {
        directory = Files.createDirectories(Path.of("target", "crash-" + UUID.randomUUID().toString().substring(0, 8)));
        url = "jdbc:h2:file:" + directory.toAbsolutePath().resolve("seckill") + ";WRITE_DELAY=0;AUTO_SERVER=TRUE";
    }

    @Override
    protected List<String> arguments() {
        return List.of("--spring.datasource.url=" + url);
    }

    @Override
    protected Connection connect() throws Exception {
        return jdbc(url, "sa", "");
    }

    @Override
    protected String paymentSecret() {
        return "demo-only-payment-secret-change-me-0123456789";
    }

    @Override
    protected String name() {
        return "crash-embedded";
    }
}
