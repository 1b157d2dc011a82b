package io.onlyonce.example.seckill.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.example.seckill.SeckillApplication;
import io.onlyonce.example.seckill.support.ExternalDatabases;
import io.onlyonce.example.seckill.support.ServiceProcess;
import io.onlyonce.example.seckill.support.TestSecrets;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The start-up failures a newcomer meets first, each told in one report with its fix instead of a
 * stack trace: the {@code postgres} profile on a server without the database, on a port where no
 * server runs, and a second instance on the embedded database file that a running one holds.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupFailuresIT {

    private static void start(String... arguments) {
        List<String> all = new ArrayList<>(List.of(arguments));
        all.addAll(List.of("--server.port=0", "--seckill.order.sweeper-enabled=false"));
        all.addAll(TestSecrets.args());
        new SpringApplicationBuilder(SeckillApplication.class).run(all.toArray(String[]::new)).close();
    }

    /** The failure report, and how many of the output's lines are stack frames. */
    private static String report(CapturedOutput output, int from) {
        String out = output.getOut().substring(from);
        int start = out.indexOf("APPLICATION FAILED TO START");
        assertThat(start).as(out).isNotNegative();
        return out.substring(start);
    }

    private static long stackFrames(CapturedOutput output, int from) {
        return output.getOut().substring(from).lines().filter(line -> line.startsWith("\tat ")).count();
    }

    @Test
    void aMissingPostgresDatabaseIsNamedWithTheCommandThatCreatesIt(CapturedOutput output) {
        String missing = "oo_missing_" + ExternalDatabases.newName();
        int from = output.getOut().length();
        assertThatThrownBy(() -> start("--spring.profiles.active=postgres",
                "--spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/" + missing,
                "--spring.datasource.username=" + ExternalDatabases.postgresUser(),
                "--spring.datasource.password=" + ExternalDatabases.postgresPassword())).isInstanceOf(Exception.class);
        assertThat(report(output, from)).contains("PostgreSQL answers at 127.0.0.1:5432, but it has no database '" + missing + "'")
                .contains("psql -h 127.0.0.1 -U " + ExternalDatabases.postgresUser() + " -c 'CREATE DATABASE " + missing + "'");
        assertThat(stackFrames(output, from)).as("no stack trace").isZero();
    }

    @Test
    void aDatabaseServerThatIsNotRunningIsSaidSo(CapturedOutput output) throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        int from = output.getOut().length();
        int closed = port;
        assertThatThrownBy(() -> start("--spring.profiles.active=postgres",
                "--spring.datasource.url=jdbc:postgresql://127.0.0.1:" + closed + "/seckill?password=hidden-in-url",
                "--spring.datasource.hikari.connection-timeout=3000")).isInstanceOf(Exception.class);
        assertThat(report(output, from)).contains("No database server answers at 127.0.0.1:" + port)
                .contains("scripts/services.sh postgres").doesNotContain("hidden-in-url");
        assertThat(stackFrames(output, from)).as("no stack trace").isZero();
    }

    @Test
    void aSecondInstanceOnTheEmbeddedDatabaseFileOfARunningOneIsToldToStopItOrUseAnother(CapturedOutput output)
            throws Exception {
        Path directory = Files.createTempDirectory("seckill-h2-");
        String url = "jdbc:h2:file:" + directory.resolve("seckill").toAbsolutePath() + ";WRITE_DELAY=0";
        try (ServiceProcess running = ServiceProcess.of("h2-holder", List.of("--spring.datasource.url=" + url,
                "--seckill.order.sweeper-enabled=false"), Map.of())) {
            running.start();
            int from = output.getOut().length();
            assertThatThrownBy(() -> start("--spring.datasource.url=" + url)).isInstanceOf(Exception.class);
            assertThat(report(output, from)).contains("is in use by another running instance of the service")
                    .contains("--spring.datasource.url=jdbc:h2:file:./data/seckill-2");
            assertThat(stackFrames(output, from)).as("no stack trace").isZero();
        }
    }
}
