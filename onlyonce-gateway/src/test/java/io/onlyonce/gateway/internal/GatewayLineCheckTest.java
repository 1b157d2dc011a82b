package io.onlyonce.gateway.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.io.support.SpringFactoriesLoader;

@ExtendWith(OutputCaptureExtension.class)
class GatewayLineCheckTest {

    @Test
    void theSupportedLinesPassAndOlderOnesAreRefusedByName() {
        for (List<String> supported : List.of(List.of("3.5.7", "4.3.0"), List.of("4.0.7", "5.0.0"),
                List.of("4.1.2", "5.0.4"), List.of("4.2.0-SNAPSHOT", "5.1.0-SNAPSHOT"))) {
            assertThat(GatewayLineCheck.refusal(supported.get(0), supported.get(1))).as(supported.toString()).isNull();
        }
        assertThat(GatewayLineCheck.refusal("3.4.9", "4.2.6")).isEqualTo("this gateway runs Spring Boot 3.4.9, and"
                + " onlyonce-gateway needs Spring Boot 3.5 or later (3.5.x, 4.0.x, 4.1.x).");
        assertThat(GatewayLineCheck.refusal("2.7.18", null)).contains("Spring Boot 2.7.18");
        assertThat(GatewayLineCheck.refusal("3.5.7", "4.2.6")).isEqualTo("this gateway runs Spring Cloud Gateway 4.2.6,"
                + " and onlyonce-gateway needs Spring Cloud Gateway 4.3 or later (4.3.x on Spring Boot 3.5, 5.0.x on"
                + " Spring Boot 4).");
        assertThat(GatewayLineCheck.refusal(null, null)).as("unknown (a shaded jar)").isNull();
        assertThat(GatewayLineCheck.refusal("custom", "custom")).isNull();
    }

    @Test
    void thisBuildsLinesStartAndTheCheckIsRegisteredForEveryApplication() {
        new GatewayLineCheck().initialize(new GenericApplicationContext());

        assertThat(SpringFactoriesLoader.forDefaultResourceLocation().load(ApplicationContextInitializer.class))
                .hasAtLeastOneElementOfType(GatewayLineCheck.class);
        assertThat(new SpringApplication().getInitializers()).hasAtLeastOneElementOfType(GatewayLineCheck.class);
    }

    /** The report comes from the registered analyzer: without it, Boot would log the bare exception. */
    @Test
    void aGatewayOnSpringBoot34FailsAtStartUpWithAReportNamingTheLinesAndArtifacts(CapturedOutput output) {
        SpringApplication application = new SpringApplication(Empty.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.addInitializers(new GatewayLineCheck(() -> "3.4.9", () -> "4.2.6"));

        assertThatThrownBy(application::run).isInstanceOf(GatewayLineCheck.UnsupportedLine.class);
        assertThat(output.getOut()).contains("APPLICATION FAILED TO START")
                .contains("OnlyOnce: this gateway runs Spring Boot 3.4.9, and onlyonce-gateway needs Spring Boot 3.5 or later")
                .contains("Use Spring Boot 3.5 with Spring Cloud 2025.0 (Spring Cloud Gateway 4.3) or Spring Boot 4.0/4.1"
                        + " with Spring Cloud 2025.1 (Spring Cloud Gateway 5.0)")
                .contains("io.onlyonce:onlyonce-bom and onlyonce-gateway, beside spring-cloud-starter-gateway-server-webflux");
    }

    @Configuration(proxyBeanMethods = false)
    static class Empty {
    }
}
