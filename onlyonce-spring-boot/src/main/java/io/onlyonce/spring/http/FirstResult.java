package io.onlyonce.spring.http;

import io.onlyonce.StoredResponse;
import io.onlyonce.json.Json;
import io.onlyonce.json.NotJsonException;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/** The first request's stored body as a problem member: parsed JSON when it is JSON, else text. */
final class FirstResult {

    private FirstResult() {
    }

    /** Numbers kept as written: {@code 1999.00} stays {@code 1999.00}, not the double {@code 1999.0}. */
    static @Nullable Object body(StoredResponse response) {
        byte[] body = response.body();
        boolean json = response.header("Content-Type").map(t -> t.contains("json")).orElse(false);
        if (json) {
            try {
                return Json.onClassPath().readExact(body);
            } catch (NotJsonException e) {
                // fall through to text
            }
        }
        return new String(body, StandardCharsets.UTF_8);
    }
}
