package io.onlyonce.spring.web;

import io.onlyonce.StoredResponse;
import java.nio.charset.StandardCharsets;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.cfg.JsonNodeFeature;
import tools.jackson.databind.json.JsonMapper;

/** The first request's stored body as a problem member: parsed JSON when it is JSON, else text. */
final class FirstResult {

    /** Numbers kept as written: {@code 1999.00} stays {@code 1999.00}, not the double {@code 1999.0}. */
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
            .build();

    private FirstResult() {
    }

    static Object body(StoredResponse response) {
        byte[] body = response.body();
        boolean json = response.header("Content-Type").map(t -> t.contains("json")).orElse(false);
        if (json) {
            try {
                return JSON.readTree(body);
            } catch (JacksonException e) {
                // fall through to text
            }
        }
        return new String(body, StandardCharsets.UTF_8);
    }
}
