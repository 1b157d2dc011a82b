package io.onlyonce.verify.check;

import io.onlyonce.verify.history.History;
import io.onlyonce.verify.history.Op;
import io.onlyonce.verify.history.OpType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One attempt of an intent: a client invocation and its completion, null when the run ended with it
 * in flight (which counts as unknown).
 */
record Attempt(Op invocation, Op completion) {

    boolean ok() {
        return completion != null && completion.type() == OpType.OK;
    }

    boolean failed() {
        return completion != null && completion.type() == OpType.FAIL;
    }

    /** Unknown: answered info, or never answered. */
    boolean unknown() {
        return completion == null || completion.type() == OpType.INFO;
    }

    /** The completion, or the invocation when there is none. */
    Op last() {
        return completion != null ? completion : invocation;
    }

    /** The text of a field of the completion (which repeats the invocation's), else of the invocation. */
    String text(String field) {
        return Values.text(last(), field);
    }

    /**
     * Every attempt of operation {@code f}, grouped by the intent field ({@code key}, {@code token},
     * {@code tradeNo}) in order of first invocation; attempts without that field are left out.
     */
    static Map<String, List<Attempt>> byIntent(History history, String f, String field) {
        Map<String, List<Attempt>> out = new LinkedHashMap<>();
        for (Op op : history.ops()) {
            if (!op.isClient() || !op.isInvoke() || !op.f().equals(f)) {
                continue;
            }
            String intent = Values.text(op, field);
            if (intent == null) {
                continue;
            }
            out.computeIfAbsent(intent, k -> new ArrayList<>()).add(new Attempt(op, history.completion(op).orElse(null)));
        }
        return out;
    }

    /** The ok completions among {@code attempts}, in history order. */
    static List<Op> oks(List<Attempt> attempts) {
        List<Op> out = new ArrayList<>();
        for (Attempt a : attempts) {
            if (a.ok()) {
                out.add(a.completion());
            }
        }
        out.sort(java.util.Comparator.comparingLong(Op::index));
        return out;
    }

    /** The completions among {@code attempts} (of any type), in history order. */
    static List<Op> completions(List<Attempt> attempts) {
        List<Op> out = new ArrayList<>();
        for (Attempt a : attempts) {
            if (a.completion() != null) {
                out.add(a.completion());
            }
        }
        out.sort(java.util.Comparator.comparingLong(Op::index));
        return out;
    }
}
