package io.onlyonce.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DedupRuleTest {

    @Test
    void theDefaultsFingerprintEverythingAndReadTheBody() {
        DedupRule rule = DedupRule.ofDefaults();
        assertThat(rule.methods()).containsExactlyInAnyOrder("POST", "PUT", "PATCH", "DELETE");
        assertThat(rule.window()).isEqualTo(Duration.ofSeconds(1));
        assertThat(rule.needsBody()).isTrue();
        assertThat(rule.needsJson()).isFalse();
    }

    @Test
    void namedFieldsReadTheBodyOnlyWhenTheyNameIt() {
        RequestDedupGatewayFilterFactory.Config config = new RequestDedupGatewayFilterFactory.Config();
        config.setFields(List.of("principal", "var:activityId"));
        assertThat(config.toRule().needsBody()).isFalse();
        config.setFields(List.of("principal", "body:productId"));
        assertThat(config.toRule().needsJson()).isTrue();
    }

    @Test
    void refusesWhatCannotWork() {
        assertThatIllegalArgumentException().isThrownBy(() -> DedupRule.ofDefaults().withWindow(Duration.ZERO));
        assertThatIllegalArgumentException().isThrownBy(() -> new DedupRule(true, Set.of("POST"), Duration.ofSeconds(1),
                List.of("cookie:x"), List.of(), List.of(), null, null)).withMessageContaining("cookie:x");
        assertThatIllegalArgumentException().isThrownBy(() -> new DedupRule(true, Set.of("POST"), Duration.ofSeconds(1),
                List.of(), List.of(), List.of(), "header:Idempotency-Key", null));
        assertThatIllegalArgumentException().isThrownBy(() -> DedupRule.businessIdFormat("u[0-9"));
    }

    @Test
    void overridesWinUntilReset() {
        RequestDedupRules rules = new RequestDedupRules();
        DedupRule configured = DedupRule.ofDefaults();
        assertThat(rules.override("orders", configured.withWindow(Duration.ofSeconds(5)))).isFalse();
        rules.configure("orders", configured);
        assertThat(rules.override("orders", configured.withWindow(Duration.ofSeconds(5)))).isTrue();
        assertThat(rules.effective("orders", configured).window()).isEqualTo(Duration.ofSeconds(5));
        rules.reset("orders");
        assertThat(rules.effective("orders", configured)).isEqualTo(configured);
    }
}
