package io.onlyonce.example.seckill.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.example.seckill.SeckillApplication;
import io.onlyonce.example.seckill.support.Api;
import io.onlyonce.example.seckill.support.TestSecrets;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.TestPropertySource;

/** The safety rules on the embedded default: H2, the in-memory OnlyOnce stores, demo mode (no profile). */
@TestPropertySource(properties = "spring.datasource.url=jdbc:h2:mem:seckill-safety;DB_CLOSE_DELAY=-1")
@ExtendWith(OutputCaptureExtension.class)
class EmbeddedSafetyTest extends AbstractSafetyScenarios {

    @Override
    protected List<String> nonDemoStart() {
        // the embedded default with the demo mode switched off: its demo secrets are no longer accepted
        return List.of("--seckill.demo.enabled=false", "--spring.datasource.url=jdbc:h2:mem:seckill-refused");
    }

    @Test
    void theEmbeddedDefaultIsADemoAndSaysSoLoudly(CapturedOutput output) {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SeckillApplication.class).run(
                "--server.port=0", "--spring.datasource.url=jdbc:h2:mem:seckill-demo-warning;DB_CLOSE_DELAY=-1",
                "--seckill.order.sweeper-enabled=false")) {
            assertThat(context.getEnvironment().getProperty("seckill.demo.enabled")).isEqualTo("true");
            assertThat(output.getOut()).contains("WARN").contains("DEMO MODE").contains("SECKILL_JWT_SECRET")
                    .contains("It listens on 127.0.0.1 only");
            // the demo's published secrets are reachable from this machine alone
            int port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
            assertThat(connects(java.net.InetAddress.getLoopbackAddress(), port)).isTrue();
            for (java.net.InetAddress other : otherAddresses()) {
                assertThat(connects(other, port)).as("connect to %s:%d", other, port).isFalse();
            }
        }
    }

    private static boolean connects(java.net.InetAddress address, int port) {
        try (java.net.Socket socket = new java.net.Socket()) {
            socket.connect(new java.net.InetSocketAddress(address, port), 2_000);
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    /** This machine's addresses other than loopback (none on a host without a network). */
    private static List<java.net.InetAddress> otherAddresses() {
        try {
            return java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces()).stream()
                    .flatMap(network -> java.util.Collections.list(network.getInetAddresses()).stream())
                    .filter(address -> !address.isLoopbackAddress() && !address.isLinkLocalAddress())
                    .toList();
        } catch (java.net.SocketException e) {
            return List.of();
        }
    }

    @Test
    void outsideDemoModeThePasswordLessLoginIsClosedUnlessOpenedAndThenSaysSo(CapturedOutput output) {
        String login = "{\"username\":\"mallory\"}";
        int closedFrom = output.getOut().length();
        try (ConfigurableApplicationContext closed = startOutsideDemoMode("seckill-login-closed")) {
            Api.Response answer = loginAt(closed, login);
            assertThat(answer.status()).as(answer.toString()).isEqualTo(404);
            assertThat(answer.problem()).isEqualTo("not-found");
            assertThat(answer.body()).doesNotContain("accessToken");
            assertThat(new JdbcTemplate(closed.getBean(DataSource.class)).queryForObject(
                    "SELECT count(*) FROM users WHERE username = 'mallory'", Integer.class)).isZero();
            assertThat(output.getOut().substring(closedFrom)).doesNotContain("password-less-login is on");
        }
        int openFrom = output.getOut().length();
        try (ConfigurableApplicationContext open = startOutsideDemoMode("seckill-login-opened",
                "--seckill.auth.password-less-login=on")) {
            Api.Response answer = loginAt(open, login);
            assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
            assertThat(answer.text("username")).isEqualTo("mallory");
            assertThat(output.getOut().substring(openFrom)).contains("WARN").contains("seckill.auth.password-less-login is on")
                    .doesNotContain("DEMO MODE");
        }
    }

    private static ConfigurableApplicationContext startOutsideDemoMode(String database, String... more) {
        List<String> args = new ArrayList<>(List.of("--server.port=0", "--seckill.demo.enabled=false",
                "--spring.datasource.url=jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1",
                "--seckill.order.sweeper-enabled=false",
                "--seckill.auth.jwt-secret=" + TestSecrets.JWT, "--seckill.payment.secret=" + TestSecrets.PAYMENT,
                "--onlyonce.token.secrets=" + TestSecrets.TOKEN));
        args.addAll(List.of(more));
        return new SpringApplicationBuilder(SeckillApplication.class).run(args.toArray(String[]::new));
    }

    private static Api.Response loginAt(ConfigurableApplicationContext context, String body) {
        int port = Integer.parseInt(context.getEnvironment().getRequiredProperty("local.server.port"));
        Api api = new Api(port);
        return api.send(api.request("POST", "/api/login", null, body));
    }
}
