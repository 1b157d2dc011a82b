package io.onlyonce.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.window.WindowHit;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import reactor.core.publisher.Mono;

class RequestDedupAutoConfigurationTest {

    private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RequestDedupAutoConfiguration.class))
            .withPropertyValues("onlyonce.gateway.redis-url=redis://127.0.0.1:1");

    @Test
    void setsUpTheFactoryWithoutWaitingForRedis() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(RequestDedupGatewayFilterFactory.class);
            assertThat(context).hasSingleBean(ReactiveRedisWindowStore.class);
            assertThat(context).hasSingleBean(RequestDedupRules.class);
            assertThat(context.getBean(RequestDedupGatewayFilterFactory.class).name()).isEqualTo("RequestDedup");
        });
    }

    @Test
    void backsOffForTheApplicationsOwnBeans() {
        ReactiveWindowStore own = (key, window) -> Mono.just(new WindowHit(1, Duration.ofSeconds(1)));
        RequestDedupRules rules = new RequestDedupRules();
        runner.withBean(ReactiveWindowStore.class, () -> own).withBean(RequestDedupRules.class, () -> rules)
                .withBean(RequestDedupMetrics.class, () -> RequestDedupMetrics.NONE)
                .run(context -> {
                    assertThat(context.getBean(ReactiveWindowStore.class)).isSameAs(own);
                    assertThat(context.getBean(RequestDedupRules.class)).isSameAs(rules);
                    assertThat(context.getBean(RequestDedupMetrics.class)).isSameAs(RequestDedupMetrics.NONE);
                });
    }

    @Test
    void canBeSwitchedOff() {
        runner.withPropertyValues("onlyonce.gateway.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(RequestDedupGatewayFilterFactory.class));
    }
}
