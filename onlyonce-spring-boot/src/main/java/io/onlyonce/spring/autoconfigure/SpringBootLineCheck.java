package io.onlyonce.spring.autoconfigure;

import io.onlyonce.support.ReleaseLine;
import io.onlyonce.spring.OnlyOnceConfigurationException;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.SpringBootVersion;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Fails the start-up of an application on a Spring Boot line OnlyOnce does not support, before any
 * auto-configuration runs (where an older Boot would fail with a missing class or annotation
 * instead), with a report that says which lines it supports. One set of artifacts serves Spring
 * Boot 3.5 and 4.x: see README's compatibility table.
 */
public final class SpringBootLineCheck implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    /** The oldest supported Spring Boot, as {@code major.minor}. */
    static final String OLDEST = "3.5";

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        String version = SpringBootVersion.getVersion();
        String refusal = refusal(version);
        if (refusal != null) {
            throw new OnlyOnceConfigurationException(refusal,
                    "Use Spring Boot 3.5 (with Spring Cloud 2025.0) or 4.0/4.1 (with Spring Cloud 2025.1), with the same"
                            + " OnlyOnce artifacts (io.onlyonce:onlyonce-bom and onlyonce-spring-boot-starter) on either line;"
                            + " see the compatibility table in OnlyOnce's README.");
        }
    }

    /** Why {@code version} is refused, or {@code null} when it is supported (or unknown, as in a shaded jar). */
    static @Nullable String refusal(@Nullable String version) {
        return ReleaseLine.of(version).filter(line -> line.isBefore(3, 5))
                .map(old -> "this application runs Spring Boot " + version + ", and OnlyOnce needs Spring Boot " + OLDEST
                        + " or later (3.5.x, 4.0.x, 4.1.x).")
                .orElse(null);
    }
}
