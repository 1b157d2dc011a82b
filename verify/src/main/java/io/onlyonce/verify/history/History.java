package io.onlyonce.verify.history;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * A whole history, in file order, with each completion paired to its invocation (a process has at
 * most one operation in flight: its next line after an invoke is that operation's completion).
 */
public final class History {

    static final JsonMapper JSON = JsonMapper.builder().build();
    private static final TypeReference<Map<String, Object>> OBJECT = new TypeReference<>() {
    };

    private final List<Op> ops;
    private final Map<Long, Op> invocationOf = new HashMap<>();
    private final Map<Long, Op> completionOf = new HashMap<>();

    public History(List<Op> ops) {
        this.ops = List.copyOf(ops);
        Map<String, Op> open = new HashMap<>();
        for (Op op : this.ops) {
            if (!op.isClient()) {
                continue;
            }
            if (op.isInvoke()) {
                open.put(op.process(), op);
            } else {
                Op invoke = open.remove(op.process());
                if (invoke != null) {
                    invocationOf.put(op.index(), invoke);
                    completionOf.put(invoke.index(), op);
                }
            }
        }
    }

    public List<Op> ops() {
        return ops;
    }

    /** The client completions (ok, fail, info) of operation {@code f}, in history order. */
    public List<Op> completions(String f) {
        return ops.stream().filter(op -> op.isClient() && !op.isInvoke() && op.f().equals(f)).toList();
    }

    /** The client invocations of operation {@code f}, in history order. */
    public List<Op> invocations(String f) {
        return ops.stream().filter(op -> op.isClient() && op.isInvoke() && op.f().equals(f)).toList();
    }

    /** The invocation a completion completes. */
    public Optional<Op> invocation(Op completion) {
        return Optional.ofNullable(invocationOf.get(completion.index()));
    }

    /** The completion of an invocation; empty when the run ended with it in flight (unknown, as info). */
    public Optional<Op> completion(Op invocation) {
        return Optional.ofNullable(completionOf.get(invocation.index()));
    }

    /** The nemesis events, in history order. */
    public List<Op> nemesis() {
        return ops.stream().filter(Op::isNemesis).toList();
    }

    /** The set-up record (process {@code setup}, f {@code setup}). */
    public Optional<Op> setup() {
        return ops.stream().filter(op -> "setup".equals(op.process())).findFirst();
    }

    /** The final read (process {@code final}, f {@code read}), the last of them if several. */
    public Optional<Op> finalRead() {
        Op last = null;
        for (Op op : ops) {
            if ("final".equals(op.process()) && "read".equals(op.f())) {
                last = op;
            }
        }
        return Optional.ofNullable(last);
    }

    /** Reads a JSON Lines history. */
    public static History read(Path file) {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            List<Op> ops = new ArrayList<>();
            String line;
            while ((line = in.readLine()) != null) {
                if (!line.isBlank()) {
                    ops.add(parse(line));
                }
            }
            return new History(ops);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parses one line. */
    public static Op parse(String line) {
        Map<String, Object> m = JSON.readValue(line, OBJECT);
        Object value = m.get("value");
        @SuppressWarnings("unchecked")
        Map<String, Object> fields = value instanceof Map<?, ?> map ? (Map<String, Object>) map : Map.of();
        return new Op(((Number) m.get("index")).longValue(), ((Number) m.get("time")).longValue(),
                String.valueOf(m.get("process")), OpType.ofWire(String.valueOf(m.get("type"))), String.valueOf(m.get("f")), fields);
    }

    /** The line of {@code op}: {@code index, time, process, type, f, value}. */
    public static String line(Op op) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("index", op.index());
        m.put("time", op.time());
        m.put("process", op.process());
        m.put("type", op.type().wire());
        m.put("f", op.f());
        m.put("value", op.value());
        return JSON.writeValueAsString(m);
    }
}
