package io.onlyonce.verify.check;

import io.onlyonce.verify.history.History;
import io.onlyonce.verify.history.Op;
import io.onlyonce.verify.history.OpType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a short history by hand: operations are numbered in the order they are added, one a
 * millisecond apart unless a test lets time pass, and a completion repeats its process's open invocation's fields and adds the answer's.
 */
final class HistoryBuilder {

    private final List<Op> ops = new ArrayList<>();
    private final Map<String, Op> open = new HashMap<>();
    private long shiftNanos;

    /** A value object from alternating names and values (values may be null). */
    static Map<String, Object> m(Object... kv) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            out.put((String) kv[i], kv[i + 1]);
        }
        return out;
    }

    HistoryBuilder setup(Map<String, Object> value) {
        return add("setup", OpType.OK, "setup", value);
    }

    HistoryBuilder invoke(String process, String f, Map<String, Object> value) {
        add(process, OpType.INVOKE, f, value);
        open.put(process, ops.get(ops.size() - 1));
        return this;
    }

    HistoryBuilder ok(String process, Map<String, Object> answer) {
        return complete(process, OpType.OK, answer);
    }

    HistoryBuilder fail(String process, Map<String, Object> answer) {
        return complete(process, OpType.FAIL, answer);
    }

    HistoryBuilder info(String process, Map<String, Object> answer) {
        return complete(process, OpType.INFO, answer);
    }

    HistoryBuilder nemesis(String kind, String phase, String target) {
        return add("nemesis", OpType.INFO, kind, m("phase", phase, "target", target, "detail", kind + " " + phase));
    }

    HistoryBuilder finalRead(Map<String, Object> value) {
        return add("final", OpType.OK, "read", value);
    }

    /** Lets {@code ms} milliseconds pass: every operation added after this one is that much later. */
    HistoryBuilder sleep(long ms) {
        shiftNanos += ms * 1_000_000L;
        return this;
    }

    /** The index of the operation added last. */
    long last() {
        return ops.size() - 1;
    }

    History build() {
        return new History(ops);
    }

    private HistoryBuilder complete(String process, OpType type, Map<String, Object> answer) {
        Op invocation = open.remove(process);
        if (invocation == null) {
            throw new IllegalStateException(process + " has no operation in flight");
        }
        Map<String, Object> value = new LinkedHashMap<>(invocation.value());
        value.putAll(answer);
        return add(process, type, invocation.f(), value);
    }

    private HistoryBuilder add(String process, OpType type, String f, Map<String, Object> value) {
        ops.add(new Op(ops.size(), ops.size() * 1_000_000L + shiftNanos, process, type, f, value));
        return this;
    }
}
