package io.onlyonce.verify.report;

import java.util.Locale;
import tools.jackson.databind.json.JsonMapper;

/**
 * Text helpers for the page: HTML escaping, compact JSON and times in seconds.
 */
final class Html {

    static final JsonMapper JSON = JsonMapper.builder().build();

    private Html() {
    }

    /** The text with {@code & < > " '} escaped; an empty string for null. */
    static String esc(Object text) {
        if (text == null) {
            return "";
        }
        String s = text.toString();
        StringBuilder out = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /** One line of JSON, cut at {@code max} characters with a note of the full length. */
    static String json(Object value, int max) {
        String s;
        try {
            s = JSON.writeValueAsString(value);
        } catch (RuntimeException e) {
            s = String.valueOf(value);
        }
        if (s.length() > max) {
            return s.substring(0, max) + " … (" + s.length() + " characters)";
        }
        return s;
    }

    /** Nanoseconds as seconds with three decimals. */
    static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e9);
    }

    /** A duration in milliseconds for a person: {@code 4 min 12.3 s}. */
    static String duration(long millis) {
        if (millis < 60_000) {
            return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
        }
        return String.format(Locale.ROOT, "%d min %.1f s", millis / 60_000, (millis % 60_000) / 1000.0);
    }
}
