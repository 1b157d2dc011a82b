package io.onlyonce.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.spring.Idempotent;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.parameters.Parameter;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springdoc.core.customizers.OperationCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.method.HandlerMethod;

/** The springdoc customizer documents the key or token header of every {@code @Idempotent} operation. */
class OnlyOnceOpenApiCustomizerTest {

    static class Handlers {
        @Idempotent
        public void withKey() {
        }

        @Idempotent(required = false)
        public void withOptionalKey() {
        }

        @Idempotent(key = "#request.businessId")
        public void withSpelKey(Object request) {
        }

        @Idempotent(strategy = Idempotent.Strategy.TOKEN, scope = "seckill")
        public void withToken() {
        }

        public void unprotected() {
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(OnlyOnceAutoConfigurationTest.ONLYONCE)
            .withPropertyValues(OnlyOnceAutoConfigurationTest.SECRET);

    private static List<Parameter> customize(OperationCustomizer customizer, String method) throws Exception {
        HandlerMethod handler = new HandlerMethod(new Handlers(), Handlers.class.getMethod(method,
                method.equals("withSpelKey") ? new Class<?>[] {Object.class} : new Class<?>[0]));
        Operation operation = customizer.customize(new Operation(), handler);
        return operation.getParameters() == null ? List.of() : operation.getParameters();
    }

    @Test
    void addsTheRequiredKeyHeaderToAKeyOperation() {
        runner.run(context -> {
            OperationCustomizer customizer = context.getBean("onlyOnceOperationCustomizer", OperationCustomizer.class);
            List<Parameter> parameters = customize(customizer, "withKey");
            assertThat(parameters).singleElement().satisfies(p -> {
                assertThat(p.getName()).isEqualTo("Idempotency-Key");
                assertThat(p.getIn()).isEqualTo("header");
                assertThat(p.getRequired()).isTrue();
                assertThat(p.getSchema().getMaxLength()).isEqualTo(255);
            });
            assertThat(customize(customizer, "withOptionalKey")).singleElement()
                    .satisfies(p -> assertThat(p.getRequired()).isFalse());
            assertThat(customize(customizer, "withSpelKey")).as("the key is in the body").isEmpty();
            assertThat(customize(customizer, "unprotected")).isEmpty();
        });
    }

    @Test
    void addsTheTokenHeaderToATokenOperation() {
        runner.withPropertyValues("onlyonce.token.header=idempotent-token").run(context -> {
            OperationCustomizer customizer = context.getBean("onlyOnceOperationCustomizer", OperationCustomizer.class);
            assertThat(customize(customizer, "withToken")).singleElement().satisfies(p -> {
                assertThat(p.getName()).isEqualTo("idempotent-token");
                assertThat(p.getIn()).isEqualTo("header");
                assertThat(p.getRequired()).isTrue();
                assertThat(p.getDescription()).contains("/idempotency/tokens");
            });
        });
    }
}
