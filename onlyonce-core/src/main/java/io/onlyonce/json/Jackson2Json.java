package io.onlyonce.json;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.PackageVersion;
import com.fasterxml.jackson.databind.json.JsonMapper;
import org.jspecify.annotations.Nullable;

/**
 * {@link Json} on Jackson 2 (2.18 or later), writing what Jackson 3 writes: a character outside
 * the Basic Multilingual Plane as its four UTF-8 bytes, not as two escaped surrogates.
 */
final class Jackson2Json extends Json {

    private final JsonMapper plain = JsonMapper.builder()
            .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();
    private final JsonMapper exact = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();
    private final JsonMapper sorted = JsonMapper.builder()
            .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .build();

    @Override
    public @Nullable Object read(byte[] json) throws NotJsonException {
        try {
            return plain.readValue(json, Object.class);
        } catch (java.io.IOException e) {
            throw new NotJsonException(e);
        }
    }

    @Override
    public @Nullable Object readExact(byte[] json) throws NotJsonException {
        try {
            return exact.readValue(json, Object.class);
        } catch (java.io.IOException e) {
            throw new NotJsonException(e);
        }
    }

    @Override
    public byte[] write(@Nullable Object value) {
        try {
            return plain.writeValueAsBytes(value);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("not a plain JSON value: " + e.getMessage(), e);
        }
    }

    @Override
    public byte[] writeSorted(@Nullable Object value) {
        try {
            return sorted.writeValueAsBytes(value);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("not a plain JSON value: " + e.getMessage(), e);
        }
    }

    @Override
    public String library() {
        return "Jackson " + PackageVersion.VERSION;
    }
}
