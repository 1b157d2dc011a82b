package io.onlyonce.spring.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.spring.Idempotent;
import io.onlyonce.spring.autoconfigure.OnlyOnceAutoConfiguration;
import io.onlyonce.spring.method.WebInvocations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

/** The reactive side applies in reactive web applications only, and every bean of it gives way to the application's. */
@ExtendWith(OutputCaptureExtension.class)
class OnlyOnceReactiveAutoConfigurationTest {

    private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(OnlyOnceAutoConfiguration.class,
            OnlyOnceReactiveAutoConfiguration.class);

    private final ReactiveWebApplicationContextRunner reactive = new ReactiveWebApplicationContextRunner()
            .withConfiguration(CONFIGURATIONS)
            .withPropertyValues("onlyonce.principal-required=false");

    @Test
    void aReactiveApplicationGetsTheWebFilterTheRouteFiltersAndThePassThroughForHandlerMethods() {
        reactive.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(OnlyOnceWebFilter.class);
            assertThat(context).hasSingleBean(OnlyOnceHandlerFilters.class);
            assertThat(context).hasSingleBean(ReactiveIdempotency.class);
            assertThat(context).getBean(WebInvocations.class).isInstanceOf(ReactiveHandlerMethods.class);
        });
    }

    @Test
    void withoutRedisThereIsNoAtomicArgument() {
        // the in-memory store: no Redis atomic executor, so nothing resolves a ReactiveAtomicIdempotency
        reactive.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean("onlyOnceAtomicWebFluxConfigurer");
        });
    }

    @RestController
    public static class GoodController {
        @PostMapping("/good")
        @Idempotent
        public String create() {
            return "ok";
        }
    }

    @RestController
    static class KeyExpressionController {
        @PostMapping("/keyed")
        @Idempotent(key = "#id")
        public String create(@RequestParam String id) {
            return "ok";
        }
    }

    @Test
    void aReactiveApplicationTakesIdempotentHandlersAndRefusesTheirKeyExpressions() {
        reactive.withBean(GoodController.class).run(context -> assertThat(context).hasNotFailed());
        reactive.withBean(KeyExpressionController.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining(
                    "KeyExpressionController.create has a key expression, which WebFlux handlers do not support yet");
        });
    }

    @Test
    void withoutSpringSecurityStartUpSaysThatPrincipalRequiredRefusesAnonymousRequests(CapturedOutput output) {
        ReactiveWebApplicationContextRunner noSecurity = new ReactiveWebApplicationContextRunner()
                .withConfiguration(CONFIGURATIONS)
                .withClassLoader(new FilteredClassLoader("org.springframework.security"))
                .withBean(GoodController.class);
        noSecurity.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(output).containsOnlyOnce("OnlyOnce: onlyonce.principal-required is true (the default), but Spring"
                    + " Security is not on the class path and no ReactivePrincipalResolver bean is declared: unless the"
                    + " server authenticates requests itself, they carry no principal, and every request to"
                    + " GoodController.create is refused with 400 principal-required. Set onlyonce.principal-required=false");
        });
        int said = output.getAll().length();
        noSecurity.withBean(ReactivePrincipalResolver.class, () -> exchange -> Mono.just("api-key-user"))
                .run(context -> assertThat(context).hasNotFailed());
        reactive.withClassLoader(new FilteredClassLoader("org.springframework.security")).withBean(GoodController.class)
                .run(context -> assertThat(context).as("principal-required=false").hasNotFailed());
        assertThat(output.getAll().substring(said)).doesNotContain("onlyonce.principal-required is true");
    }

    @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
    static class Routes {
        @org.springframework.context.annotation.Bean
        RouterFunction<ServerResponse> refunds(OnlyOnceHandlerFilters onlyOnce) {
            return RouterFunctions.route().POST("/refunds", request -> ServerResponse.ok().build())
                    .filter(onlyOnce.idempotent()).build();
        }
    }

    @Test
    void aProtectedFunctionalRouteCountsToo(CapturedOutput output) {
        new ReactiveWebApplicationContextRunner()
                .withConfiguration(CONFIGURATIONS)
                .withClassLoader(new FilteredClassLoader("org.springframework.security"))
                .withUserConfiguration(Routes.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output).containsOnlyOnce("every request to 1 functional route is refused with 400");
                });
    }

    @Test
    void aServletApplicationGetsNoneOfIt() {
        new WebApplicationContextRunner().withConfiguration(CONFIGURATIONS)
                .withPropertyValues("onlyonce.token.secrets[0]=an-auto-configuration-test-secret-0123456789")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(OnlyOnceWebFilter.class);
                    assertThat(context).doesNotHaveBean(ReactiveIdempotency.class);
                });
    }

    @Test
    void withoutReactorItBacksOff() {
        reactive.withClassLoader(new FilteredClassLoader(Mono.class)).run(context -> {
            assertThat(context).doesNotHaveBean(OnlyOnceWebFilter.class);
            assertThat(context).doesNotHaveBean(OnlyOnceHandlerFilters.class);
        });
    }

    @Test
    void theApplicationsOwnBeansWin() {
        ReactivePrincipalResolver mine = exchange -> Mono.just("tenant-1:alice");
        reactive.withBean(ReactivePrincipalResolver.class, () -> mine).run(context ->
                assertThat(context.getBean(ReactivePrincipalResolver.class)).isSameAs(mine));
        reactive.withPropertyValues("onlyonce.enabled=false").run(context ->
                assertThat(context).doesNotHaveBean(OnlyOnceWebFilter.class));
    }
}
