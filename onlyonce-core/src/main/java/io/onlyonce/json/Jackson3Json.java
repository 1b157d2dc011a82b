package io.onlyonce.json;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.cfg.PackageVersion;
import tools.jackson.databind.json.JsonMapper;

/** {@link Json} on Jackson 3. */
final class Jackson3Json extends Json {

    private final JsonMapper plain = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();
    private final JsonMapper exact = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();
    private final JsonMapper sorted = JsonMapper.builder()
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .build();

    @Override
    public @Nullable Object read(byte[] json) throws NotJsonException {
        try {
            return plain.readValue(json, Object.class);
        } catch (JacksonException e) {
            throw new NotJsonException(e);
        }
    }

    @Override
    public @Nullable Object readExact(byte[] json) throws NotJsonException {
        try {
            return exact.readValue(json, Object.class);
        } catch (JacksonException e) {
            throw new NotJsonException(e);
        }
    }

    @Override
    public byte[] write(@Nullable Object value) {
        try {
            return plain.writeValueAsBytes(value);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("not a plain JSON value: " + e.getMessage(), e);
        }
    }

    @Override
    public byte[] writeSorted(@Nullable Object value) {
        try {
            return sorted.writeValueAsBytes(value);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("not a plain JSON value: " + e.getMessage(), e);
        }
    }

    @Override
    public String library() {
        return "Jackson " + PackageVersion.VERSION;
    }
}
