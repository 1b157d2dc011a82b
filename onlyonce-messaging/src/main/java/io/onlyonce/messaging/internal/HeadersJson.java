package io.onlyonce.messaging.internal;

import io.onlyonce.json.Json;
import io.onlyonce.json.NotJsonException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A message's headers as the text of one JSON object of strings, in their order: what the
 * {@code headers} column of the outbox holds.
 */
public final class HeadersJson {

    private HeadersJson() {
    }

    /** The JSON object of {@code headers}, in order. */
    public static String write(Map<String, String> headers) {
        return new String(Json.onClassPath().write(headers), StandardCharsets.UTF_8);
    }

    /**
     * The headers of a JSON object written by {@link #write}, in order.
     *
     * @throws IllegalStateException when {@code json} is not an object of strings
     */
    public static Map<String, String> read(String json) {
        Object read;
        try {
            read = Json.onClassPath().read(json.getBytes(StandardCharsets.UTF_8));
        } catch (NotJsonException e) {
            throw new IllegalStateException("the headers column is not a JSON object of strings", e);
        }
        if (read == null) {
            throw new IllegalStateException("the headers column holds null");
        }
        if (!(read instanceof Map<?, ?> map)) {
            throw new IllegalStateException("the headers column is not a JSON object of strings");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            if (!(entry.getValue() instanceof String value)) {
                throw new IllegalStateException("the headers column is not a JSON object of strings");
            }
            headers.put((String) entry.getKey(), value);
        }
        return headers;
    }
}
