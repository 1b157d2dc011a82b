package io.onlyonce.verify.check;

import io.onlyonce.verify.history.Op;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Reading the fields of history values and final-read rows the same way in every checker: ids as
 * text (a number 7 and a text "7" are the same id), amounts as {@link BigDecimal}.
 */
final class Values {

    private Values() {
    }

    /** An id as text: integral numbers without a fraction, anything else as its text; null stays null. */
    static String id(Object v) {
        if (v == null) {
            return null;
        }
        if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            return Long.toString(((Number) v).longValue());
        }
        if (v instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())) {
            return Long.toString(n.longValue());
        }
        return v.toString();
    }

    static String text(Map<String, Object> row, String field) {
        return id(row.get(field));
    }

    static String text(Op op, String field) {
        return id(op.value().get(field));
    }

    /** A number field, or {@code otherwise} when absent or null. */
    static long number(Map<String, Object> row, String field, long otherwise) {
        Object v = row.get(field);
        if (v == null) {
            return otherwise;
        }
        return v instanceof Number n ? n.longValue() : Long.parseLong(v.toString().trim());
    }

    /** An amount ("6.20"); null when absent. Compare with {@code compareTo}. */
    static BigDecimal amount(Object v) {
        return v == null ? null : new BigDecimal(v.toString().trim());
    }

    /** Whether two amounts are the same number (both absent counts as the same). */
    static boolean sameAmount(Object a, Object b) {
        BigDecimal x = amount(a);
        BigDecimal y = amount(b);
        return x == null ? y == null : y != null && x.compareTo(y) == 0;
    }

    /** A live order: UNPAID or PAID. */
    static boolean live(Map<String, Object> order) {
        String status = text(order, "status");
        return "UNPAID".equals(status) || "PAID".equals(status);
    }

    static boolean paid(Map<String, Object> order) {
        return "PAID".equals(text(order, "status"));
    }

    static List<Long> indexes(Collection<Op> ops) {
        List<Long> out = new ArrayList<>(ops.size());
        for (Op op : ops) {
            out.add(op.index());
        }
        return out;
    }
}
