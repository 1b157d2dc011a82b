package io.onlyonce.spring.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;

/** What the core's auto-configuration tests start with. */
final class TestSettings {

    /** The core's auto-configurations, as the starter registers them, with Boot's AOP. */
    static final AutoConfigurations ONLYONCE = AutoConfigurations.of(OnlyOnceAutoConfiguration.class,
            OnlyOnceMetricsAutoConfiguration.class, OnlyOnceEndpointAutoConfiguration.class, AopAutoConfiguration.class);

    /** A token secret, for a shared store. */
    static final String SECRET = "onlyonce.token.secrets[0]=an-auto-configuration-test-secret-0123456789";

    private TestSettings() {
    }
}
