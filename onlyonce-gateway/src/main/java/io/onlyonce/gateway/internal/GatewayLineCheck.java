package io.onlyonce.gateway.internal;

import io.onlyonce.support.ReleaseLine;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.SpringBootVersion;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Fails the start-up of a gateway on a Spring Boot or Spring Cloud Gateway line that
 * {@code onlyonce-gateway} does not support, before any auto-configuration runs (where an older line
 * would fail with a missing class or property instead), with a report that names the supported lines
 * and the artifacts to use. The twin of the starter's check, for a gateway that has only this module.
 */
public final class GatewayLineCheck implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    static final String ACTION = "Use Spring Boot 3.5 with Spring Cloud 2025.0 (Spring Cloud Gateway 4.3) or Spring Boot"
            + " 4.0/4.1 with Spring Cloud 2025.1 (Spring Cloud Gateway 5.0), with the same OnlyOnce artifacts"
            + " (io.onlyonce:onlyonce-bom and onlyonce-gateway, beside spring-cloud-starter-gateway-server-webflux) on"
            + " either line; see the compatibility table in OnlyOnce's README.";

    private final Supplier<@Nullable String> bootVersion;
    private final Supplier<@Nullable String> gatewayVersion;

    /** The check of the class path's Spring Boot and Spring Cloud Gateway. */
    public GatewayLineCheck() {
        this(SpringBootVersion::getVersion, () -> GatewayFilter.class.getPackage().getImplementationVersion());
    }

    GatewayLineCheck(Supplier<@Nullable String> bootVersion, Supplier<@Nullable String> gatewayVersion) {
        this.bootVersion = bootVersion;
        this.gatewayVersion = gatewayVersion;
    }

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        String refusal = refusal(bootVersion.get(), gatewayVersion.get());
        if (refusal != null) {
            throw new UnsupportedLine(refusal);
        }
    }

    /**
     * Why this pair of versions is refused, or {@code null} when both are supported (or unknown, as in
     * a shaded jar).
     */
    static @Nullable String refusal(@Nullable String boot, @Nullable String gateway) {
        if (ReleaseLine.of(boot).filter(line -> line.isBefore(3, 5)).isPresent()) {
            return "this gateway runs Spring Boot " + boot + ", and onlyonce-gateway needs Spring Boot 3.5 or later"
                    + " (3.5.x, 4.0.x, 4.1.x).";
        }
        if (ReleaseLine.of(gateway).filter(line -> line.isBefore(4, 3)).isPresent()) {
            return "this gateway runs Spring Cloud Gateway " + gateway + ", and onlyonce-gateway needs Spring Cloud"
                    + " Gateway 4.3 or later (4.3.x on Spring Boot 3.5, 5.0.x on Spring Boot 4).";
        }
        return null;
    }

    /**
     * The refusal, its message what is wrong: Spring Boot reports it as "APPLICATION FAILED TO START"
     * with that description and {@link #ACTION}.
     */
    public static final class UnsupportedLine extends IllegalStateException {

        private static final long serialVersionUID = 1L;

        UnsupportedLine(String description) {
            super(description);
        }
    }
}
