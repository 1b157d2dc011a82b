package io.onlyonce.verify.report;

import io.onlyonce.verify.check.Anomaly;
import io.onlyonce.verify.history.History;
import io.onlyonce.verify.history.Op;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Finds the operations that tell an anomaly's story: its own operations and every client operation that
 * shares an identity with them (key, token, tradeNo, orderNo, reservationId), followed a few hops (an
 * order's key to its order number to its payments), plus the rows of the final read about them.
 * Indexes the history once, so each story costs its own size, not the history's.
 */
final class Stories {

    /** The fields of a client operation that identify an intent or one of its effects. */
    static final List<String> OP_IDENTS = List.of("key", "token", "tradeNo", "orderNo", "reservationId");
    /** The columns of a final read row that identify what it is about. */
    static final List<String> ROW_IDENTS = List.of("businessId", "key", "token", "tradeNo", "orderNo", "reservationId",
            "id", "messageId");

    private static final int HOPS = 3;
    private static final int MAX_MEMBERS = 5_000;
    private static final int MAX_ROWS_PER_FIELD = 200;

    private final List<Op> ops;
    private final Map<Long, Integer> positionOf = new HashMap<>();
    private final Map<String, List<Integer>> opsByIdent = new HashMap<>();
    private final Op finalRead;
    private final Map<String, List<RowRef>> rowsByIdent = new HashMap<>();

    /** A row of the final read: the field it is in and its position there. */
    record RowRef(String field, int position, Map<String, Object> row) {
    }

    /**
     * One anomaly's story.
     *
     * @param anomaly the anomaly
     * @param own the indexes of the operations the anomaly names
     * @param ops the operations shown, in history order (when the story is cut, the anomaly's own are kept first)
     * @param total how many operations the story has before any cut
     * @param finalValue the final read's rows about the story, when the final read is among {@code ops}
     */
    record Story(Anomaly anomaly, Set<Long> own, List<Op> ops, int total, Map<String, Object> finalValue) {

        Object shownValue(Op op) {
            return finalValue != null && "final".equals(op.process()) && "read".equals(op.f()) ? finalValue : op.value();
        }
    }

    Stories(History history) {
        this.ops = history.ops();
        for (int i = 0; i < ops.size(); i++) {
            Op op = ops.get(i);
            positionOf.put(op.index(), i);
            if (op.isClient()) {
                for (String field : OP_IDENTS) {
                    String v = op.str(field);
                    if (v != null && !v.isEmpty()) {
                        opsByIdent.computeIfAbsent(v, k -> new ArrayList<>()).add(i);
                    }
                }
            }
        }
        this.finalRead = history.finalRead().orElse(null);
        if (finalRead != null) {
            for (Map.Entry<String, Object> e : finalRead.value().entrySet()) {
                List<Map<String, Object>> rows = finalRead.rows(e.getKey());
                for (int p = 0; p < rows.size(); p++) {
                    if (rows.get(p) instanceof Map<?, ?>) {
                        RowRef ref = new RowRef(e.getKey(), p, rows.get(p));
                        for (String ident : rowIdents(e.getKey(), rows.get(p))) {
                            rowsByIdent.computeIfAbsent(ident, k -> new ArrayList<>()).add(ref);
                        }
                    }
                }
            }
        }
    }

    /** The operation at a history index. */
    Optional<Op> op(long index) {
        Integer p = positionOf.get(index);
        return p == null ? Optional.empty() : Optional.of(ops.get(p));
    }

    /** The story of one anomaly, cut at {@code cap} operations (its own operations kept first). */
    Story of(Anomaly anomaly, int cap) {
        Set<Integer> own = new TreeSet<>();
        Set<Long> ownIndexes = new LinkedHashSet<>();
        for (Long index : anomaly.ops()) {
            Integer p = index == null ? null : positionOf.get(index);
            if (p != null) {
                own.add(p);
                ownIndexes.add(index);
            }
        }
        Set<String> seen = new HashSet<>();
        List<String> todo = new ArrayList<>();
        addIdent(anomaly.subject(), seen, todo);
        for (int p : own) {
            identsOf(ops.get(p), seen, todo);
        }
        Set<Integer> members = new TreeSet<>(own);
        Map<String, Set<Integer>> finalRows = new LinkedHashMap<>();
        for (int hop = 0; hop < HOPS && !todo.isEmpty(); hop++) {
            List<String> next = new ArrayList<>();
            for (String ident : todo) {
                for (int p : opsByIdent.getOrDefault(ident, List.of())) {
                    if (members.size() < MAX_MEMBERS && members.add(p)) {
                        identsOf(ops.get(p), seen, next);
                    }
                }
                for (RowRef ref : rowsByIdent.getOrDefault(ident, List.of())) {
                    Set<Integer> rows = finalRows.computeIfAbsent(ref.field(), k -> new TreeSet<>());
                    if (rows.size() < MAX_ROWS_PER_FIELD && rows.add(ref.position())) {
                        for (String v : rowIdents(ref.field(), ref.row())) {
                            addIdent(v, seen, next);
                        }
                    }
                }
            }
            todo = next;
        }
        Map<String, Object> finalValue = null;
        if (finalRead != null) {
            Integer p = positionOf.get(finalRead.index());
            if (p != null && (own.contains(p) || !finalRows.isEmpty())) {
                members.add(p);
                finalValue = finalValue(finalRows, members);
            }
        }
        Set<Integer> kept = new TreeSet<>();
        for (Set<Integer> from : List.of(own, members)) {
            for (int p : from) {
                if (kept.size() >= cap) {
                    break;
                }
                kept.add(p);
            }
        }
        List<Op> shown = new ArrayList<>(kept.size());
        for (int p : kept) {
            shown.add(ops.get(p));
        }
        return new Story(anomaly, ownIndexes, shown, members.size(), finalValue);
    }

    private Map<String, Object> finalValue(Map<String, Set<Integer>> rowsByField, Set<Integer> members) {
        Set<String> users = new HashSet<>();
        for (int p : members) {
            String user = ops.get(p).str("userId");
            if (user != null) {
                users.add(user);
            }
        }
        Map<String, Object> shown = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : finalRead.value().entrySet()) {
            Object v = e.getValue();
            if (v instanceof List<?>) {
                Set<Integer> positions = rowsByField.get(e.getKey());
                if (positions != null) {
                    List<Map<String, Object>> rows = finalRead.rows(e.getKey());
                    List<Object> picked = new ArrayList<>();
                    for (int p : positions) {
                        picked.add(rows.get(p));
                        Object user = rows.get(p).get("userId");
                        if (user != null) {
                            users.add(user.toString());
                        }
                    }
                    shown.put(e.getKey(), picked);
                }
            } else if (!(v instanceof Map<?, ?>)) {
                shown.put(e.getKey(), v);
            }
        }
        for (Map.Entry<String, Object> e : finalRead.value().entrySet()) {
            if (e.getValue() instanceof Map<?, ?> map) {
                Map<String, Object> picked = new LinkedHashMap<>();
                for (Map.Entry<?, ?> entry : map.entrySet()) {
                    if (users.contains(String.valueOf(entry.getKey()))) {
                        picked.put(String.valueOf(entry.getKey()), entry.getValue());
                    }
                }
                if (!picked.isEmpty()) {
                    shown.put(e.getKey(), picked);
                }
            }
        }
        return shown;
    }

    private static void identsOf(Op op, Set<String> seen, List<String> into) {
        if (!op.isClient()) {
            return;
        }
        for (String field : OP_IDENTS) {
            addIdent(op.str(field), seen, into);
        }
    }

    private static void addIdent(String value, Set<String> seen, List<String> into) {
        if (value != null && !value.isEmpty() && seen.add(value)) {
            into.add(value);
        }
    }

    /**
     * A row's identities; an outbox row's id or an inbox row's message id ({@code <orderNo>_paid}) also
     * gives its order number. Other fields' {@code id} columns (products) are not identities.
     */
    private static List<String> rowIdents(String field, Map<String, Object> row) {
        List<String> idents = new ArrayList<>(2);
        for (String column : ROW_IDENTS) {
            if ("id".equals(column) && !"outbox".equals(field)) {
                continue;
            }
            Object v = row.get(column);
            if (v == null) {
                continue;
            }
            String s = v.toString();
            if (s.isEmpty()) {
                continue;
            }
            idents.add(s);
            int cut = s.lastIndexOf('_');
            if (("id".equals(column) || "messageId".equals(column)) && cut > 0) {
                idents.add(s.substring(0, cut));
            }
        }
        return idents;
    }
}
