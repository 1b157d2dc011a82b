package io.onlyonce.verify.workload;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * An HTTP answer as the client saw it.
 *
 * @param status the status code
 * @param contentType the Content-Type, or ""
 * @param replayed whether {@code Idempotent-Replayed: true} came with it
 * @param body the body as text
 */
public record Answer(int status, String contentType, boolean replayed, String body) {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    public boolean success() {
        return status >= 200 && status < 300;
    }

    public JsonNode json() {
        try {
            return JSON.readTree(body);
        } catch (RuntimeException notJson) {
            return JSON.createObjectNode();
        }
    }

    /** The problem type's slug ({@code urn:...:problem:<slug>}), or null when the body is no problem. */
    public String problem() {
        if (!contentType.startsWith("application/problem+json")) {
            return null;
        }
        String type = json().path("type").asString("");
        return type.isEmpty() ? null : type.substring(type.lastIndexOf(':') + 1);
    }

    public String text(String field) {
        JsonNode node = json().path(field);
        return node.isMissingNode() || node.isNull() ? null : node.asString();
    }

    /** A money field as text with two decimals. */
    public Optional<String> money(String field) {
        JsonNode node = json().path(field);
        if (node.isMissingNode() || node.isNull()) {
            return Optional.empty();
        }
        return Optional.of(new BigDecimal(node.asString()).setScale(2, RoundingMode.UNNECESSARY).toPlainString());
    }
}
