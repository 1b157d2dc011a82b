package io.onlyonce.example.seckill.demo;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;

/**
 * Refuses to start outside demo mode ({@code seckill.demo.enabled}, turned on by the {@code demo}
 * profile) unless the three secrets are real: set, at least 32 bytes, and not one of the demo values
 * published in the README. Runs before any bean is made (a bean factory post-processor), so an
 * instance with forgeable logins or payments never opens a database connection or a port.
 */
public final class SecretsGuard implements BeanFactoryPostProcessor, EnvironmentAware, Ordered {

    /** The demo secrets of {@code application-demo.yml}, published in the README: never accepted outside demo mode. */
    public static final String DEMO_JWT_SECRET = "demo-only-jwt-secret-change-me-0123456789abcdef";
    public static final String DEMO_PAYMENT_SECRET = "demo-only-payment-secret-change-me-0123456789";
    public static final String DEMO_TOKEN_SECRET = "demo-only-token-secret-change-me-0123456789";
    static final Set<String> PUBLISHED = Set.of(DEMO_JWT_SECRET, DEMO_PAYMENT_SECRET, DEMO_TOKEN_SECRET);
    static final int MIN_BYTES = 32;

    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
        check(environment);
    }

    /** Whether {@code environment} is a demo. */
    public static boolean demoMode(Environment environment) {
        return binder(environment).bind("seckill.demo.enabled", Boolean.class).orElse(false);
    }

    /**
     * Checks the secrets of {@code environment}.
     *
     * @throws InsecureConfigurationException outside demo mode, for every secret that is missing, short or published
     */
    public static void check(Environment environment) {
        if (demoMode(environment)) {
            return;
        }
        Binder binder = binder(environment);
        List<String> problems = new ArrayList<>();
        judge(problems, "seckill.auth.jwt-secret", "SECKILL_JWT_SECRET",
                binder.bind("seckill.auth.jwt-secret", String.class).orElse(""));
        judge(problems, "seckill.payment.secret", "SECKILL_PAYMENT_SECRET",
                binder.bind("seckill.payment.secret", String.class).orElse(""));
        List<String> tokenSecrets = binder.bind("onlyonce.token.secrets", Bindable.listOf(String.class)).orElse(List.of())
                .stream().filter(s -> !s.isBlank()).toList();
        if (tokenSecrets.isEmpty()) {
            judge(problems, "onlyonce.token.secrets", "ONLYONCE_TOKEN_SECRET", "");
        }
        tokenSecrets.forEach(secret -> judge(problems, "onlyonce.token.secrets", "ONLYONCE_TOKEN_SECRET", secret));
        if (!problems.isEmpty()) {
            throw new InsecureConfigurationException(problems);
        }
    }

    private static void judge(List<String> problems, String property, String variable, String value) {
        if (value.isBlank()) {
            problems.add(variable + " (" + property + ") is not set");
        } else if (PUBLISHED.contains(value.strip())) {
            problems.add(variable + " (" + property + ") is a demo secret published in the README");
        } else if (value.getBytes(StandardCharsets.UTF_8).length < MIN_BYTES) {
            problems.add(variable + " (" + property + ") is shorter than " + MIN_BYTES + " bytes");
        }
    }

    private static Binder binder(Environment environment) {
        return environment instanceof ConfigurableEnvironment configurable ? Binder.get(configurable)
                : new Binder();
    }
}
