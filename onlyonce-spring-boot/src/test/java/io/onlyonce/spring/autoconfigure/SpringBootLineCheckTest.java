package io.onlyonce.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.spring.OnlyOnceConfigurationException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.io.support.SpringFactoriesLoader;

class SpringBootLineCheckTest {

    @Test
    void theSupportedLinesPassAndOlderOnesAreRefusedByName() {
        for (String supported : List.of("3.5.0", "3.5.7", "4.0.7", "4.1.2", "4.2.0-SNAPSHOT", "5.0.0")) {
            assertThat(SpringBootLineCheck.refusal(supported)).as(supported).isNull();
        }
        for (String old : List.of("3.4.9", "3.0.0", "2.7.18")) {
            assertThat(SpringBootLineCheck.refusal(old)).as(old)
                    .contains("Spring Boot " + old).contains("needs Spring Boot 3.5 or later");
        }
        assertThat(SpringBootLineCheck.refusal(null)).as("unknown (a shaded jar)").isNull();
        assertThat(SpringBootLineCheck.refusal("custom")).isNull();
    }

    @Test
    void thisBuildsSpringBootStartsAndTheCheckIsRegisteredForEveryApplication() {
        new SpringBootLineCheck().initialize(new GenericApplicationContext());

        assertThat(SpringFactoriesLoader.forDefaultResourceLocation().load(org.springframework.context.ApplicationContextInitializer.class))
                .hasAtLeastOneElementOfType(SpringBootLineCheck.class);
        assertThat(new SpringApplication().getInitializers()).hasAtLeastOneElementOfType(SpringBootLineCheck.class);
        assertThat(SpringBootVersion.getVersion()).startsWith("4.");
    }

    @Test
    void aRefusalIsReportedWithTheSupportedLines() {
        OnlyOnceConfigurationException refused = new OnlyOnceConfigurationException(
                SpringBootLineCheck.refusal("3.3.4"), "Use Spring Boot 3.5 or 4.x");
        assertThatThrownBy(() -> {
            throw refused;
        }).hasMessageContaining("Spring Boot 3.3.4");
        FailureAnalysis analysis = new OnlyOnceFailureAnalyzer().analyze(new IllegalStateException(refused));

        assertThat(analysis.getDescription()).isEqualTo("OnlyOnce: this application runs Spring Boot 3.3.4, and OnlyOnce"
                + " needs Spring Boot 3.5 or later (3.5.x, 4.0.x, 4.1.x).");
        assertThat(analysis.getAction()).isEqualTo("Use Spring Boot 3.5 or 4.x");
    }
}
