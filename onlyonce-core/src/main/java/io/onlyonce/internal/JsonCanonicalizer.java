package io.onlyonce.internal;

import io.onlyonce.json.Json;
import io.onlyonce.json.NotJsonException;

/**
 * Canonical form of a JSON document for fingerprinting: object keys sorted at every level,
 * insignificant whitespace removed, numbers kept exactly (no binary floating point). Documents
 * with duplicate keys are not canonicalised (they are ambiguous) and are hashed as sent.
 */
public final class JsonCanonicalizer {

    private JsonCanonicalizer() {
    }

    /** The canonical bytes, or the input itself when it is not one well-formed JSON document. */
    public static byte[] canonicalizeOrSelf(byte[] json) {
        if (json.length == 0) {
            return json;
        }
        Json codec = Json.onClassPath();
        try {
            return codec.writeSorted(codec.readExact(json));
        } catch (NotJsonException notJson) {
            return json;
        }
    }
}
