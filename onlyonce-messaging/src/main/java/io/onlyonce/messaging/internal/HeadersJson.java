package io.onlyonce.messaging.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * A message's headers as the text of one JSON object of strings, in their order: what the
 * {@code headers} column of the outbox holds.
 */
public final class HeadersJson {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    private static final TypeReference<LinkedHashMap<String, String>> MAP = new TypeReference<>() {
    };

    private HeadersJson() {
    }

    /** The JSON object of {@code headers}, in order. */
    public static String write(Map<String, String> headers) {
        return MAPPER.writeValueAsString(headers);
    }

    /**
     * The headers of a JSON object written by {@link #write}, in order.
     *
     * @throws IllegalStateException when {@code json} is not an object of strings
     */
    public static Map<String, String> read(String json) {
        try {
            LinkedHashMap<String, String> headers = MAPPER.readValue(json, MAP);
            if (headers == null) {
                throw new IllegalStateException("the headers column holds null");
            }
            return headers;
        } catch (JacksonException e) {
            throw new IllegalStateException("the headers column is not a JSON object of strings", e);
        }
    }
}
