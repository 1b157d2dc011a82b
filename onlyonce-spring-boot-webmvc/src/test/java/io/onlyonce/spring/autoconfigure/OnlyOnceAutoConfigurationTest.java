package io.onlyonce.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import io.onlyonce.engine.IdempotencyConfig;
import io.onlyonce.engine.IdempotencyListener;
import io.onlyonce.engine.IdempotencyEngine;
import io.onlyonce.engine.StoreFailurePolicy;
import io.onlyonce.jdbc.JdbcIdempotencyStore;
import io.onlyonce.jdbc.JdbcTokenStore;
import io.onlyonce.jdbc.JdbcWindowStore;
import io.onlyonce.memory.InMemoryIdempotencyStore;
import io.onlyonce.memory.InMemoryTokenStore;
import io.onlyonce.memory.InMemoryWindowStore;
import io.onlyonce.redis.RedisIdempotencyStore;
import io.onlyonce.spring.Idempotent;
import io.onlyonce.spring.OnlyOnceConfigurationException;
import io.onlyonce.spring.PrincipalResolver;
import io.onlyonce.spring.dedup.RequestDedupFilter;
import io.onlyonce.spring.metrics.MicrometerOutcomeRecorder;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import io.onlyonce.spring.web.IdempotentMethodInterceptor;
import io.onlyonce.spring.web.OnlyOnceExceptionHandler;
import io.onlyonce.spring.web.TokenEndpoint;
import io.onlyonce.spring.web.autoconfigure.OnlyOnceOpenApiAutoConfiguration;
import io.onlyonce.spring.web.autoconfigure.OnlyOnceWebMvcAutoConfiguration;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.token.TokenConfig;
import io.onlyonce.token.TokenService;
import io.onlyonce.token.TokenStore;
import io.onlyonce.window.WindowStore;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springdoc.core.customizers.OperationCustomizer;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** Conditions, back-off and binding of the OnlyOnce auto-configurations, without a server. */
@ExtendWith(OutputCaptureExtension.class)
class OnlyOnceAutoConfigurationTest {

    static final AutoConfigurations ONLYONCE = AutoConfigurations.of(OnlyOnceAutoConfiguration.class,
            OnlyOnceMetricsAutoConfiguration.class, OnlyOnceEndpointAutoConfiguration.class,
            OnlyOnceWebMvcAutoConfiguration.class, OnlyOnceOpenApiAutoConfiguration.class, AopAutoConfiguration.class);

    static final String SECRET = "onlyonce.token.secrets[0]=an-auto-configuration-test-secret-0123456789";

    private final WebApplicationContextRunner web = new WebApplicationContextRunner()
            .withConfiguration(ONLYONCE)
            .withPropertyValues(SECRET);

    @Test
    void defaultsAreTheMemoryStoresAndTheWebParts() {
        web.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).getBean(IdempotencyStore.class).isInstanceOf(InMemoryIdempotencyStore.class);
            assertThat(context).getBean(TokenStore.class).isInstanceOf(InMemoryTokenStore.class);
            assertThat(context).getBean(WindowStore.class).isInstanceOf(InMemoryWindowStore.class);
            assertThat(context).hasSingleBean(IdempotencyEngine.class)
                    .hasSingleBean(TokenService.class)
                    .hasSingleBean(IdempotentMethodInterceptor.class)
                    .hasSingleBean(OnlyOnceExceptionHandler.class)
                    .hasSingleBean(TokenEndpoint.class)
                    .hasBean("onlyOnceAdvisor")
                    .hasBean("onlyOnceFilter")
                    .doesNotHaveBean("onlyOnceDedupFilter")
                    .doesNotHaveBean(MicrometerOutcomeRecorder.class);
            IdempotencyConfig config = context.getBean(IdempotencyConfig.class);
            assertThat(config.retention()).isEqualTo(Duration.ofHours(24));
            assertThat(config.lease()).isEqualTo(Duration.ofSeconds(30));
            assertThat(config.storeFailurePolicy()).isEqualTo(StoreFailurePolicy.STRICT);
        });
    }

    @Test
    void withoutAWebApplicationTheEngineAndTheAdviceForServiceMethodsAreConfigured() {
        new ApplicationContextRunner().withConfiguration(ONLYONCE).withPropertyValues(SECRET).run(context -> {
            assertThat(context).hasSingleBean(IdempotencyEngine.class).hasSingleBean(TokenService.class)
                    .hasSingleBean(io.onlyonce.spring.method.IdempotentInvocationInterceptor.class)
                    .hasBean("onlyOnceAdvisor")
                    .doesNotHaveBean(IdempotentMethodInterceptor.class)
                    .doesNotHaveBean("onlyOnceFilter");
        });
    }

    @Test
    void propertiesBindFromLowerCaseValues() {
        web.withPropertyValues("onlyonce.key.store-failure-policy=permissive", "onlyonce.key.retention=2h",
                "onlyonce.key.lease=10s", "onlyonce.jdbc.initialize-schema=always", "onlyonce.store=memory")
                .run(context -> {
                    OnlyOnceProperties properties = context.getBean(OnlyOnceProperties.class);
                    assertThat(properties.key().storeFailurePolicy()).isEqualTo(StoreFailurePolicy.PERMISSIVE);
                    assertThat(properties.jdbc().initializeSchema()).isEqualTo(OnlyOnceProperties.SchemaInitialization.ALWAYS);
                    assertThat(properties.store()).isEqualTo(OnlyOnceProperties.StoreType.MEMORY);
                    IdempotencyConfig config = context.getBean(IdempotencyConfig.class);
                    assertThat(config.storeFailurePolicy()).isEqualTo(StoreFailurePolicy.PERMISSIVE);
                    assertThat(config.retention()).isEqualTo(Duration.ofHours(2));
                    assertThat(config.lease()).isEqualTo(Duration.ofSeconds(10));
                });
    }

    @Test
    void theMasterSwitchTurnsEverythingOff() {
        web.withPropertyValues("onlyonce.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(IdempotencyEngine.class).doesNotHaveBean(IdempotencyStore.class)
                    .doesNotHaveBean(TokenService.class).doesNotHaveBean("onlyOnceFilter")
                    .doesNotHaveBean("onlyOnceAdvisor").doesNotHaveBean(OnlyOnceProperties.class);
        });
    }

    @RestController
    static class TokenController {
        @PostMapping("/buy")
        @Idempotent(strategy = Idempotent.Strategy.TOKEN)
        public String buy() {
            return "bought";
        }
    }

    @Test
    void aSharedStoreWithoutTokenSecretsFailsStartUpOnlyWhenATokenMethodExists(CapturedOutput output) {
        WebApplicationContextRunner jdbc = new WebApplicationContextRunner()
                .withConfiguration(ONLYONCE)
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withPropertyValues("onlyonce.store=jdbc", "spring.datasource.url=jdbc:h2:mem:oo-no-secrets;DB_CLOSE_DELAY=-1");
        jdbc.run(context -> {
            assertThat(context).as("no TOKEN method, no secret needed").hasNotFailed();
            assertThat(context).hasSingleBean(IdempotencyEngine.class).doesNotHaveBean(TokenEndpoint.class);
            assertThat(output).containsOnlyOnce("OnlyOnce one-time tokens are off: onlyonce.store=jdbc is shared by"
                    + " every instance and onlyonce.token.secrets is not set, so the token endpoint is not registered."
                    + " To use @Idempotent(strategy = TOKEN), set onlyonce.token.secrets");
            assertThat(new OnlyOnceEndpoint(context.getBean(OnlyOnceProperties.class), context.getBean(OnlyOnceStatistics.class),
                    context.getBean(io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry.class), null).report())
                    .extractingByKey("configuration").asString().contains("endpointEnabled=false").doesNotContain("path=");
        });
        jdbc.withBean(TokenController.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasRootCauseInstanceOf(OnlyOnceConfigurationException.class)
                    .hasStackTraceContaining("TokenController.buy uses the TOKEN strategy, but onlyonce.token.secrets"
                            + " is not set while the store is shared by every instance")
                    .hasStackTraceContaining("Set onlyonce.token.secrets");
        });
        jdbc.withBean(TokenController.class).withPropertyValues(SECRET).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(TokenEndpoint.class);
        });
        web.withPropertyValues("onlyonce.token.secrets=").withBean(TokenController.class).run(context -> {
            assertThat(context).as("the memory store serves one instance: a random secret is fine").hasNotFailed();
            assertThat(context).hasSingleBean(TokenEndpoint.class);
        });
    }

    @RestController
    public static class OrderController {
        @PostMapping("/orders")
        @Idempotent
        public String create() {
            return "created";
        }
    }

    static final String PRINCIPAL_WARNING = "OnlyOnce: onlyonce.principal-required is true (the default), but Spring"
            + " Security is not on the class path and no PrincipalResolver bean is declared: unless the server"
            + " authenticates requests itself, they carry no principal, and every request to OrderController.create is"
            + " refused with 400 principal-required. Set onlyonce.principal-required=false";

    @Test
    void withoutSpringSecurityStartUpSaysThatPrincipalRequiredRefusesAnonymousRequests(CapturedOutput output) {
        WebApplicationContextRunner noSecurity = web.withClassLoader(new FilteredClassLoader("org.springframework.security"))
                .withBean(OrderController.class);
        noSecurity.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(output).containsOnlyOnce(PRINCIPAL_WARNING);
        });
        int said = output.getAll().length();
        noSecurity.withPropertyValues("onlyonce.principal-required=false").run(context -> assertThat(context).hasNotFailed());
        noSecurity.withBean(PrincipalResolver.class, () -> request -> request.getHeader("X-User"))
                .run(context -> assertThat(context).hasNotFailed());
        web.withBean(OrderController.class).run(context -> assertThat(context).as("Spring Security present").hasNotFailed());
        web.withClassLoader(new FilteredClassLoader("org.springframework.security"))
                .run(context -> assertThat(context).as("nothing protected").hasNotFailed());
        assertThat(output.getAll().substring(said)).doesNotContain("onlyonce.principal-required is true");
    }

    @Test
    void aRandomTokenSecretIsWarnedOfOnceAndOnlyWhenATokenIsIssued(CapturedOutput output) {
        web.withPropertyValues("onlyonce.token.secrets=").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(output).as("an application that issues no token is not told about the secret")
                    .doesNotContain("onlyonce.token.secrets is not set");
            TokenService tokens = context.getBean(TokenService.class);
            tokens.issue("alice", "seckill");
            tokens.issue("bob", "seckill");
            assertThat(output).containsOnlyOnce("onlyonce.token.secrets is not set: one-time tokens are signed with a"
                    + " random secret of this instance only");
        });
        web.run(context -> context.getBean(TokenService.class).issue("carol", "seckill"));
        assertThat(output).as("a token issued with a secret adds nothing").containsOnlyOnce("onlyonce.token.secrets is not set");
    }

    @Test
    void withTokensDisabledThereIsNoTokenEndpoint() {
        web.withPropertyValues("onlyonce.token.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(TokenEndpoint.class);
        });
    }

    @Test
    void anUnknownStoreFailsStartUp() {
        web.withPropertyValues("onlyonce.store=mongo").run(context -> assertThat(context).hasFailed());
    }

    @Test
    void jdbcStoresOnTheApplicationsDataSourceWithTheSchemaForAnEmbeddedDatabase() {
        for (String store : List.of("jdbc", "JDBC")) {
            web.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                    .withPropertyValues("onlyonce.store=" + store,
                            "spring.datasource.url=jdbc:h2:mem:oo-autoconfig-" + store + ";DB_CLOSE_DELAY=-1")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(context).getBean(IdempotencyStore.class).isInstanceOf(TransactionAwareJdbcIdempotencyStore.class);
                        assertThat(context).getBean(TokenStore.class).isInstanceOf(JdbcTokenStore.class);
                        assertThat(context).getBean(WindowStore.class).isInstanceOf(JdbcWindowStore.class);
                        try (Connection connection = context.getBean(DataSource.class).getConnection()) {
                            assertThat(connection.getMetaData().getTables(null, null, "ONLYONCE_IDEMPOTENCY", null).next())
                                    .as("schema created").isTrue();
                        }
                    });
        }
    }

    @Test
    void withoutTheRedisModuleThereAreNoRedisStoresEvenWithStoreRedis() {
        ApplicationContextRunner redis = new ApplicationContextRunner()
                .withConfiguration(ONLYONCE)
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
                .withPropertyValues(SECRET, "onlyonce.store=redis");
        redis.withClassLoader(new FilteredClassLoader(RedisIdempotencyStore.class)).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining(
                    "No OnlyOnce IdempotencyStore for onlyonce.store=redis. Add io.onlyonce:onlyonce-redis");
        });
        redis.withClassLoader(new FilteredClassLoader("io.lettuce", "redis.clients")).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("onlyonce.store=redis");
        });
        redis.withClassLoader(new FilteredClassLoader("io.lettuce", "redis.clients"))
                .withBean("userStore", IdempotencyStore.class, () -> new InMemoryIdempotencyStore(Clock.systemUTC(), 10))
                .withBean("userTokens", TokenStore.class, () -> new InMemoryTokenStore(Clock.systemUTC(), 10))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(RedisIdempotencyStore.class)
                            .doesNotHaveBean("onlyOnceRedisConnection");
                });
    }

    @Test
    void withoutMicrometerThereIsNoRecorder() {
        web.withBean(SimpleMeterRegistry.class).run(context -> {
            assertThat(context).hasSingleBean(MicrometerOutcomeRecorder.class);
            context.getBean(OnlyOnceStatistics.class).record("business", "executed", "POST /x");
            assertThat(context.getBean(MeterRegistry.class).get("onlyonce.requests")
                    .tags("layer", "business", "outcome", "executed", "endpoint", "POST /x").counter().count()).isEqualTo(1);
        });
        web.withClassLoader(new FilteredClassLoader(MeterRegistry.class)).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(MicrometerOutcomeRecorder.class).hasSingleBean(OnlyOnceStatistics.class);
        });
    }

    @Test
    void theRecorderBindsToTheRegistryThatBootsOwnMetricsAutoConfigurationMakes() {
        web.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
                .run(context -> {
                    assertThat(context).hasSingleBean(MeterRegistry.class).hasSingleBean(MicrometerOutcomeRecorder.class);
                    context.getBean(OnlyOnceStatistics.class).record("gateway", "window_duplicate", "POST /y");
                    assertThat(context.getBean(MeterRegistry.class).get("onlyonce.requests")
                            .tags("layer", "gateway", "outcome", "window_duplicate").counter().count()).isEqualTo(1);
                });
    }

    @Test
    void aUserListenerAndTheMicrometerRecorderBothHearTheEngine() {
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        web.withBean(SimpleMeterRegistry.class)
                .withBean("myListener", IdempotencyListener.class, () -> new IdempotencyListener() {
                    @Override
                    public void onStoreCall(String operation, Duration elapsed) {
                        calls.incrementAndGet();
                    }
                })
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    context.getBean(IdempotencyEngine.class).execute(new IdempotencyKey("s", "k"), Fingerprint.of("x"),
                            context.getBean(IdempotencyConfig.class), () -> StoredResponse.of(200, new byte[0]));
                    assertThat(calls.get()).isEqualTo(2);
                    assertThat(context.getBean(MeterRegistry.class).get("onlyonce.store.calls").timers()).isNotEmpty();
                });
    }

    @Test
    void withoutActuatorThereIsNoEndpoint() {
        WebApplicationContextRunner exposed = web.withPropertyValues("management.endpoints.web.exposure.include=onlyonce");
        exposed.run(context -> assertThat(context).hasSingleBean(OnlyOnceEndpoint.class));
        exposed.withClassLoader(new FilteredClassLoader(Endpoint.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(OnlyOnceEndpoint.class));
        web.run(context -> assertThat(context).as("not exposed").doesNotHaveBean(OnlyOnceEndpoint.class));
    }

    @Test
    @SuppressWarnings("unchecked")
    void endpointReportsTheTokenEndpointPathOnlyWhereItIsServed() {
        WebApplicationContextRunner exposed = web.withPropertyValues("management.endpoints.web.exposure.include=onlyonce");
        java.util.function.Function<org.springframework.context.ApplicationContext, Map<String, Object>> token = context ->
                (Map<String, Object>) ((Map<String, Object>) context.getBean(OnlyOnceEndpoint.class).report()
                        .get("configuration")).get("token");
        exposed.run(context -> assertThat(token.apply(context)).containsEntry("endpointEnabled", true)
                .containsEntry("path", "/idempotency/tokens"));
        exposed.withPropertyValues("onlyonce.token.endpoint-enabled=false")
                .run(context -> assertThat(token.apply(context)).containsEntry("endpointEnabled", false)
                        .doesNotContainKey("path"));
        exposed.withPropertyValues("onlyonce.token.enabled=false")
                .run(context -> assertThat(token.apply(context)).containsEntry("enabled", false)
                        .containsEntry("endpointEnabled", false).doesNotContainKey("path"));
    }

    @Test
    void withoutSpringdocThereIsNoOperationCustomizer() {
        web.run(context -> assertThat(context).hasBean("onlyOnceOperationCustomizer"));
        web.withClassLoader(new FilteredClassLoader(OperationCustomizer.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("onlyOnceOperationCustomizer"));
    }

    @Test
    void theDedupFilterIsRegisteredWhenEnabled() {
        web.withPropertyValues("onlyonce.dedup.enabled=true", "onlyonce.dedup.rules[0].pattern=/orders/**")
                .run(context -> {
                    assertThat(context).hasBean("onlyOnceDedupFilter");
                    assertThat(context.getBean("onlyOnceDedupFilter", FilterRegistrationBean.class).getFilter())
                            .isInstanceOf(RequestDedupFilter.class);
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class UserBeans {

        static final IdempotencyStore STORE = new InMemoryIdempotencyStore(Clock.systemUTC(), 10);
        static final PrincipalResolver PRINCIPALS = request -> "tenant-1:" + request.getRemoteUser();
        static final TokenService TOKENS = new TokenService(new InMemoryTokenStore(Clock.systemUTC(), 10),
                TokenConfig.of("a-user-secret-of-thirty-two-bytes-or-more".getBytes(StandardCharsets.UTF_8)),
                Clock.systemUTC());

        @Bean
        IdempotencyStore myStore() {
            return STORE;
        }

        @Bean
        PrincipalResolver myPrincipals() {
            return PRINCIPALS;
        }

        @Bean
        TokenService myTokens() {
            return TOKENS;
        }
    }

    @Test
    void userBeansWin() {
        web.withUserConfiguration(UserBeans.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).getBean(IdempotencyStore.class).isSameAs(UserBeans.STORE);
            assertThat(context).getBean(PrincipalResolver.class).isSameAs(UserBeans.PRINCIPALS);
            assertThat(context).getBean(TokenService.class).isSameAs(UserBeans.TOKENS);
            assertThat(context).hasSingleBean(IdempotencyStore.class).hasSingleBean(PrincipalResolver.class)
                    .hasSingleBean(TokenService.class);
        });
    }

    @Test
    void everyBeanOfEveryOnlyOnceConfigurationBacksOff() {
        Set<Class<?>> configurations = new LinkedHashSet<>();
        for (String name : ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader())) {
            if (name.startsWith("io.onlyonce.")) {
                collect(load(name), configurations);
            }
        }
        assertThat(configurations).contains(OnlyOnceAutoConfiguration.class, OnlyOnceMetricsAutoConfiguration.class,
                OnlyOnceEndpointAutoConfiguration.class, OnlyOnceOpenApiAutoConfiguration.class,
                OnlyOnceRedisConfiguration.class, OnlyOnceJdbcConfiguration.class, OnlyOnceWebMvcAutoConfiguration.class,
                OnlyOnceWebMvcAutoConfiguration.Dedup.class, OnlyOnceAutoConfiguration.MemoryStores.class);
        List<String> beans = new ArrayList<>();
        List<String> unconditional = new ArrayList<>();
        for (Class<?> configuration : configurations) {
            for (Method method : configuration.getDeclaredMethods()) {
                if (AnnotatedElementUtils.hasAnnotation(method, Bean.class)) {
                    beans.add(configuration.getSimpleName() + "." + method.getName());
                    if (!AnnotatedElementUtils.hasAnnotation(method, ConditionalOnMissingBean.class)) {
                        unconditional.add(configuration.getName() + "." + method.getName());
                    }
                }
            }
        }
        assertThat(beans).hasSizeGreaterThan(25);
        assertThat(unconditional).isEmpty();
    }

    private static void collect(Class<?> type, Set<Class<?>> into) {
        if (!into.add(type)) {
            return;
        }
        Import imports = type.getAnnotation(Import.class);
        if (imports != null) {
            for (Class<?> imported : imports.value()) {
                collect(imported, into);
            }
        }
        for (Class<?> member : type.getDeclaredClasses()) {
            if (AnnotatedElementUtils.hasAnnotation(member, Configuration.class)) {
                collect(member, into);
            }
        }
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
