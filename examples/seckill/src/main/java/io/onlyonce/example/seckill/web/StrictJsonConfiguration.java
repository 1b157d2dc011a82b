package io.onlyonce.example.seckill.web;

import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.cfg.MutableCoercionConfig;
import tools.jackson.databind.type.LogicalType;

/**
 * Strict JSON for every request body (and the payment notices): a field takes exactly its own JSON
 * type, or the request is answered 400 {@code malformed-request}. No float for an integer
 * ({@code "quantity": 1.5} is not 1), no string for a number or a boolean ({@code "1"} is not 1),
 * no number or boolean for a string, no duplicate keys (the last one does not silently win), nothing
 * after the JSON value. Unknown fields stay allowed, so a client or a payment platform may add some.
 */
@Configuration(proxyBeanMethods = false)
class StrictJsonConfiguration {

    @Bean
    JsonMapperBuilderCustomizer strictJson() {
        return builder -> builder
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .withCoercionConfig(LogicalType.Integer, c -> refuse(c, CoercionInputShape.String, CoercionInputShape.EmptyString,
                        CoercionInputShape.Float, CoercionInputShape.Boolean))
                .withCoercionConfig(LogicalType.Float, c -> refuse(c, CoercionInputShape.String, CoercionInputShape.EmptyString,
                        CoercionInputShape.Boolean))
                .withCoercionConfig(LogicalType.Boolean, c -> refuse(c, CoercionInputShape.String, CoercionInputShape.EmptyString,
                        CoercionInputShape.Integer, CoercionInputShape.Float))
                .withCoercionConfig(LogicalType.Textual, c -> refuse(c, CoercionInputShape.Integer, CoercionInputShape.Float,
                        CoercionInputShape.Boolean));
    }

    private static void refuse(MutableCoercionConfig config, CoercionInputShape... shapes) {
        for (CoercionInputShape shape : shapes) {
            config.setCoercion(shape, CoercionAction.Fail);
        }
    }
}
