package io.onlyonce.example.seckill.web;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.parameters.Parameter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.stereotype.Component;

/**
 * This service's words for the finished OpenAPI document, after the OnlyOnce starter added the
 * idempotency header of each {@code @Idempotent} operation: one entry per header (the starter's,
 * in place of the one springdoc made from the method's {@code @RequestHeader}), the one-time
 * token's real source (this service issues tokens per flash sale, not at the starter's token
 * endpoint, which is off), the business-id form of the key, and no bearer token on the two
 * operations that take none (login, payment callback).
 */
@Component
class OpenApiOperations implements OpenApiCustomizer {

    private static final Map<String, String> HEADERS = Map.of(
            "idempotency-token", "One-time token from POST /api/seckill/activities/{activityId}/tokens (the same user and"
                    + " activity); consumed by this call. Resent: 409 duplicate-submission with the first order.",
            "idempotency-key", "The business id of this purchase intent, u{userId}_{epochMillis}_{6 letters or digits},"
                    + " made once by the client and sent again with every retry: a retry is answered with the first"
                    + " answer, byte for byte (Idempotent-Replayed: true); the same key with another body 422.");
    private static final List<String> WITHOUT_LOGIN = List.of("/api/login", "/api/payments/callback");

    @Override
    public void customise(OpenAPI openApi) {
        if (openApi.getPaths() == null) {
            return;
        }
        openApi.getPaths().forEach((path, item) -> {
            for (Operation operation : item.readOperations()) {
                describeHeaders(operation);
                if (WITHOUT_LOGIN.contains(path)) {
                    operation.setSecurity(List.of());
                }
            }
        });
    }

    private static void describeHeaders(Operation operation) {
        if (operation.getParameters() == null) {
            return;
        }
        Map<String, Parameter> headers = new LinkedHashMap<>();
        List<Parameter> parameters = new ArrayList<>();
        for (Parameter parameter : operation.getParameters()) {
            if (!"header".equals(parameter.getIn())) {
                parameters.add(parameter);
                continue;
            }
            String name = parameter.getName().toLowerCase(Locale.ROOT);
            Parameter earlier = headers.get(name);
            if (earlier != null && Boolean.TRUE.equals(earlier.getRequired())) {
                parameter.setRequired(true);
            }
            headers.put(name, parameter);
            if (HEADERS.containsKey(name)) {
                parameter.setDescription(HEADERS.get(name));
            }
        }
        parameters.addAll(headers.values());
        operation.setParameters(parameters);
    }
}
