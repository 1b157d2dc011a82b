package io.onlyonce.json;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * JSON for OnlyOnce's own documents (fingerprints, problem details, message headers), read into
 * and written from plain Java values: {@link java.util.Map} (insertion-ordered), {@link List},
 * {@link String}, numbers, {@link Boolean} and {@code null}.
 *
 * <p>It works with the Jackson the application already has: Jackson 3 ({@code tools.jackson})
 * where it is present and usable, else Jackson 2 ({@code com.fasterxml.jackson}). Both write the
 * same bytes for the same values, so a fingerprint taken on a Spring Boot 4 service matches the
 * one taken on a Spring Boot 3 service. Thread-safe.
 */
public abstract class Json {

    private static volatile @Nullable Json onClassPath;

    /** Subclasses are this package's. */
    Json() {
    }

    /**
     * The JSON of the class path: Jackson 3 when it is there and works (its annotations module can
     * be too old for it in a Spring Boot 3 application), else Jackson 2.
     *
     * @throws IllegalStateException when neither can be used; its message names the artifacts
     */
    public static Json onClassPath() {
        Json json = onClassPath;
        if (json == null) {
            json = load();
            onClassPath = json;
        }
        return json;
    }

    private static Json load() {
        List<String> reasons = new ArrayList<>();
        for (String implementation : List.of("Jackson3Json", "Jackson2Json")) {
            try {
                Json json = (Json) Class.forName(Json.class.getPackageName() + "." + implementation)
                        .getDeclaredConstructor().newInstance();
                json.selfTest();
                return json;
            } catch (ReflectiveOperationException | NotJsonException | LinkageError | RuntimeException unusable) {
                Throwable cause = unusable.getCause() != null ? unusable.getCause() : unusable;
                reasons.add(implementation + ": " + cause);
            }
        }
        throw new IllegalStateException("OnlyOnce reads and writes JSON with Jackson: add"
                + " tools.jackson.core:jackson-databind (Jackson 3, as Spring Boot 4 does) or"
                + " com.fasterxml.jackson.core:jackson-databind (Jackson 2, as Spring Boot 3 does) to the dependencies "
                + reasons);
    }

    private void selfTest() throws NotJsonException {
        Object read = readExact("{\"a\":[1,2.50,\"x\",true,null]}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        String written = new String(writeSorted(read), java.nio.charset.StandardCharsets.UTF_8);
        if (!written.equals("{\"a\":[1,2.50,\"x\",true,null]}")) {
            throw new IllegalStateException("wrote " + written);
        }
    }

    /**
     * One JSON document as plain values, with Jackson's usual numbers ({@link Integer},
     * {@link Long} or {@link java.math.BigInteger}; {@link Double}); of repeated keys the last
     * wins.
     *
     * @throws NotJsonException when {@code json} is not exactly one well-formed document
     */
    public abstract @Nullable Object read(byte[] json) throws NotJsonException;

    /**
     * One JSON document as plain values with its numbers exactly as written
     * ({@link java.math.BigInteger}, {@link java.math.BigDecimal} keeping its trailing zeros).
     *
     * @throws NotJsonException when {@code json} is not exactly one well-formed document, or an
     *     object in it repeats a key (such a document is ambiguous)
     */
    public abstract @Nullable Object readExact(byte[] json) throws NotJsonException;

    /** The compact UTF-8 JSON of plain values, object members in their map's order. */
    public abstract byte[] write(@Nullable Object value);

    /** The compact UTF-8 JSON of plain values, object members sorted by key at every level. */
    public abstract byte[] writeSorted(@Nullable Object value);

    /**
     * The member of {@code value} at a dotted path of object keys ({@code "buyer.id"}), or
     * {@code null} when a step is not an object or has no such key.
     */
    public static @Nullable Object member(@Nullable Object value, String dottedPath) {
        Object node = value;
        for (String part : dottedPath.split("\\.")) {
            node = node instanceof java.util.Map<?, ?> map ? map.get(part) : null;
        }
        return node;
    }

    /** Which library this is, with its version, for diagnostics. */
    public abstract String library();
}
