package io.onlyonce.internal;

import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * Canonical form of a JSON document for fingerprinting: object keys sorted at every level,
 * insignificant whitespace removed, numbers kept exactly (no binary floating point). Documents
 * with duplicate keys are not canonicalised (they are ambiguous) and are hashed as sent.
 */
public final class JsonCanonicalizer {

    private static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private JsonCanonicalizer() {
    }

    /** The canonical bytes, or the input itself when it is not one well-formed JSON document. */
    public static byte[] canonicalizeOrSelf(byte[] json) {
        if (json.length == 0) {
            return json;
        }
        try {
            Object tree = MAPPER.readValue(json, Object.class);
            return MAPPER.writeValueAsBytes(tree);
        } catch (JacksonException notJson) {
            return json;
        }
    }
}
