package io.onlyonce.spring.web.autoconfigure;

import io.onlyonce.spring.Idempotent;
import io.onlyonce.spring.autoconfigure.OnlyOnceAutoConfiguration;
import io.onlyonce.spring.autoconfigure.OnlyOnceProperties;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.parameters.HeaderParameter;
import org.springdoc.core.customizers.OperationCustomizer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.AnnotatedElementUtils;

/** With springdoc present: documents the key or token header on every {@link Idempotent} operation. */
@AutoConfiguration(after = OnlyOnceAutoConfiguration.class)
@ConditionalOnClass(OperationCustomizer.class)
@ConditionalOnBooleanProperty(name = "onlyonce.enabled", matchIfMissing = true)
public class OnlyOnceOpenApiAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "onlyOnceOperationCustomizer")
    OperationCustomizer onlyOnceOperationCustomizer(OnlyOnceProperties properties) {
        return (operation, handlerMethod) -> {
            Idempotent idempotent = AnnotatedElementUtils.findMergedAnnotation(handlerMethod.getMethod(), Idempotent.class);
            if (idempotent == null) {
                return operation;
            }
            boolean token = idempotent.strategy() == Idempotent.Strategy.TOKEN;
            if (!token && !idempotent.key().isBlank()) {
                return operation;
            }
            HeaderParameter header = new HeaderParameter();
            header.setName(token ? properties.token().header() : properties.key().header());
            header.setRequired(token || idempotent.required());
            header.setSchema(new StringSchema().maxLength(token ? null : 255));
            header.setDescription(token
                    ? "One-time token from POST " + properties.token().path() + "; consumed by this call."
                    : "Client-chosen key, the same for every retry of one request; the first answer is replayed.");
            operation.addParametersItem(header);
            return operation;
        };
    }
}
