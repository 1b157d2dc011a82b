package io.onlyonce.verify.history;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One line of a history: an operation's invocation or completion, a nemesis event, or the final read.
 *
 * @param index its position in the history, from 0
 * @param time nanoseconds since the run started
 * @param process who: {@code c<N>} a client, {@code nemesis} the fault injector, {@code setup}, {@code final}
 * @param type invoke, ok, fail or info
 * @param f the operation: {@code order}, {@code purchase}, {@code pay}, {@code cancel}; a fault kind for
 *     the nemesis; {@code setup} and {@code read} for the set-up and the final read
 * @param value its fields (JSON object: strings, numbers, booleans, lists, objects)
 */
public record Op(long index, long time, String process, OpType type, String f, Map<String, Object> value) {

    public Op {
        Objects.requireNonNull(process, "process");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(f, "f");
        value = value == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(value));
    }

    public boolean isInvoke() {
        return type == OpType.INVOKE;
    }

    public boolean isClient() {
        return process.startsWith("c");
    }

    public boolean isNemesis() {
        return "nemesis".equals(process);
    }

    /** The field as text, or null when absent or null. */
    public String str(String field) {
        Object v = value.get(field);
        return v == null ? null : v.toString();
    }

    /** The field as a number, or {@code otherwise} when absent. */
    public long num(String field, long otherwise) {
        Object v = value.get(field);
        if (v instanceof Number n) {
            return n.longValue();
        }
        return v == null ? otherwise : Long.parseLong(v.toString());
    }

    /** The field as a boolean; false when absent. */
    public boolean bool(String field) {
        Object v = value.get(field);
        return v instanceof Boolean b ? b : v != null && Boolean.parseBoolean(v.toString());
    }

    /** The field as a list of objects (an empty list when absent). */
    @SuppressWarnings("unchecked")
    public List<Map<String, Object>> rows(String field) {
        Object v = value.get(field);
        return v instanceof List<?> list ? (List<Map<String, Object>>) list : List.of();
    }

    /** The field as an object (an empty map when absent). */
    @SuppressWarnings("unchecked")
    public Map<String, Object> object(String field) {
        Object v = value.get(field);
        return v instanceof Map<?, ?> map ? (Map<String, Object>) map : Map.of();
    }
}
