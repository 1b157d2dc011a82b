package io.onlyonce.spring;

import io.onlyonce.json.Json;
import io.onlyonce.json.NotJsonException;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A JSON answer as the HTTP tests read it, on whichever Jackson the application has (3 on Spring
 * Boot 4, 2 on Spring Boot 3), so that the same tests run on both lines. Reads like a Jackson tree.
 */
final class JsonDoc {

    private final @Nullable Object value;

    private JsonDoc(@Nullable Object value) {
        this.value = value;
    }

    static JsonDoc parse(String json) {
        try {
            return new JsonDoc(Json.onClassPath().read(json.getBytes(StandardCharsets.UTF_8)));
        } catch (NotJsonException e) {
            throw new AssertionError("not JSON: " + json, e);
        }
    }

    /** The member {@code name} of an object, or {@code null} when there is none. */
    @Nullable JsonDoc get(String name) {
        return value instanceof Map<?, ?> map && map.containsKey(name) ? new JsonDoc(map.get(name)) : null;
    }

    /** The element at {@code index} of an array, or {@code null} when there is none. */
    @Nullable JsonDoc get(int index) {
        return value instanceof List<?> list && index >= 0 && index < list.size() ? new JsonDoc(list.get(index)) : null;
    }

    boolean has(String name) {
        return value instanceof Map<?, ?> map && map.containsKey(name);
    }

    int size() {
        return value instanceof Map<?, ?> map ? map.size() : value instanceof List<?> list ? list.size() : 0;
    }

    boolean isNull() {
        return value == null;
    }

    /** A string's text, a number's or a boolean's as written; empty for null, objects and arrays. */
    String asString() {
        return value instanceof String || value instanceof Number || value instanceof Boolean ? value.toString() : "";
    }

    int asInt() {
        return (int) asLong();
    }

    long asLong() {
        if (value instanceof Number number) {
            return number.longValue();
        }
        try {
            return value instanceof String text ? Long.parseLong(text.trim()) : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    boolean asBoolean() {
        return value instanceof Boolean bool ? bool : value instanceof String text && text.equals("true");
    }

    /** The member names of an object, in their order. */
    Set<String> propertyNames() {
        Set<String> names = new LinkedHashSet<>();
        if (value instanceof Map<?, ?> map) {
            map.keySet().forEach(name -> names.add((String) name));
        }
        return names;
    }

    /** The members of an object, in their order. */
    Set<Map.Entry<String, JsonDoc>> properties() {
        Set<Map.Entry<String, JsonDoc>> members = new LinkedHashSet<>();
        if (value instanceof Map<?, ?> map) {
            map.forEach((name, member) -> members.add(new AbstractMap.SimpleImmutableEntry<>((String) name, new JsonDoc(member))));
        }
        return members;
    }

    /** The compact JSON. */
    @Override
    public String toString() {
        return new String(Json.onClassPath().write(value), StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof JsonDoc doc && java.util.Objects.equals(value, doc.value);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hashCode(value);
    }
}
