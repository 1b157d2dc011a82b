package io.onlyonce.example.seckill.web;

import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.media.ArraySchema;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
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
 * operations that take none (login, payment callback), and the problems each operation may answer
 * ({@code application/problem+json}, one {@code Problem} schema).
 */
@Component
class OpenApiOperations implements OpenApiCustomizer {

    private static final Map<String, String> HEADERS = Map.of(
            "idempotency-token", "One-time token from POST /api/seckill/activities/{activityId}/tokens (the same user and"
                    + " activity); consumed by this call. Resent: 409 duplicate-submission with the first order.",
            "idempotency-key", "The business id of this purchase intent, `u{userId}_{epochMillis}_{6 letters or digits}`,"
                    + " made once by the client and sent again with every retry: a retry is answered with the first"
                    + " answer, byte for byte (Idempotent-Replayed: true); the same key with another body 422.");
    private static final String PROBLEM = "Problem";
    private static final List<String> WITHOUT_LOGIN = List.of("/api/login", "/api/payments/callback");

    @Override
    public void customise(OpenAPI openApi) {
        if (openApi.getPaths() == null) {
            return;
        }
        if (openApi.getComponents() == null) {
            openApi.setComponents(new Components());
        }
        openApi.getComponents().addSchemas(PROBLEM, problemSchema());
        openApi.getPaths().forEach((path, item) -> {
            for (Operation operation : item.readOperations()) {
                describeHeaders(operation);
                if (WITHOUT_LOGIN.contains(path)) {
                    operation.setSecurity(List.of());
                }
                if (path.startsWith("/api/")) {
                    describeProblems(operation, path);
                }
            }
        });
    }

    /**
     * The problems an operation may answer, each {@code application/problem+json}: 400 and the
     * catch-all for every operation, 401 where a token or signature is checked, and for the
     * idempotent ones what OnlyOnce answers (409, 422, 429, 503).
     */
    private static void describeProblems(Operation operation, String path) {
        if (operation.getResponses() == null) {
            operation.setResponses(new ApiResponses());
        }
        ApiResponses responses = operation.getResponses();
        problem(responses, "400", "malformed-request, validation-failed (with errors[]): nothing was changed");
        if (!"/api/login".equals(path)) {
            problem(responses, "401", "/api/payments/callback".equals(path) ? "signature-invalid"
                    : "unauthorized: no valid access token");
        }
        boolean keyed = hasHeader(operation, "idempotency-key");
        boolean tokened = hasHeader(operation, "idempotency-token");
        // the flash sale's token and order requests: the request window and the sale's own availability
        boolean flashSale = path.startsWith("/api/seckill/activities/") && (path.endsWith("/orders") || path.endsWith("/tokens"));
        if (keyed || tokened) {
            problem(responses, "409", (tokened ? "duplicate-submission (with firstStatus and firstResult when known), "
                    : "idempotency-request-in-progress (Retry-After), ") + "or a business conflict such as sold-out or"
                    + " order-exists (with orderNo)");
            if (keyed) {
                problem(responses, "422", "idempotency-key-reused: the same key with another request");
            }
        }
        if (keyed || tokened || flashSale) {
            problem(responses, "429", "too-many-requests: the caller's request rate (Retry-After)"
                    + (flashSale ? "; duplicate-request: the same request again within the window" : ""));
            problem(responses, "503", "idempotency-store-unavailable" + (flashSale ? " or sale-unavailable" : "")
                    + " (Retry-After): nothing was done, retry");
        }
        problem(responses, "default", "any other problem (RFC 9457), in English or Chinese by Accept-Language");
    }

    private static boolean hasHeader(Operation operation, String name) {
        return operation.getParameters() != null && operation.getParameters().stream()
                .anyMatch(p -> "header".equals(p.getIn()) && name.equalsIgnoreCase(p.getName()));
    }

    private static void problem(ApiResponses responses, String status, String description) {
        if (responses.containsKey(status)) {
            return;
        }
        responses.addApiResponse(status, new ApiResponse().description(description).content(new Content()
                .addMediaType("application/problem+json", new MediaType().schema(new Schema<>().$ref(PROBLEM)))));
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static Schema<?> problemSchema() {
        Schema error = new ObjectSchema().addProperty("field", new StringSchema()).addProperty("message", new StringSchema());
        return new ObjectSchema()
                .description("RFC 9457 problem details; type is urn:onlyonce:problem:<slug>")
                .addProperty("type", new StringSchema().example("urn:onlyonce:problem:validation-failed"))
                .addProperty("title", new StringSchema())
                .addProperty("status", new IntegerSchema())
                .addProperty("detail", new StringSchema())
                .addProperty("instance", new StringSchema())
                .addProperty("errors", new ArraySchema().items(error)
                        .description("validation-failed: one entry per field that failed"))
                .addProperty("orderNo", new StringSchema().description("the order a conflict is about"))
                .addProperty("firstStatus", new IntegerSchema().description("duplicate-submission: the first answer's status"))
                .addProperty("firstResult", new ObjectSchema().description("duplicate-submission: the first answer's body"));
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
