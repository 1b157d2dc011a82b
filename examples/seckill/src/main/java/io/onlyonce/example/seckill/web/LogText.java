package io.onlyonce.example.seckill.web;

/**
 * Text that came with a request, made safe for a log line: CR and LF become {@code \r} and
 * {@code \n}, every other control character (C0, DEL, C1, the Unicode line and paragraph
 * separators) {@code \}{@code uXXXX}, so no input can end a log line and forge the next one, or
 * send terminal escape sequences to whoever reads the log. Tabs stay.
 */
public final class LogText {

    private LogText() {
    }

    /** {@code text} with its line breaks and control characters escaped; the same instance when it has none. */
    public static String escape(String text) {
        int first = firstUnsafe(text);
        if (first < 0) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length() + 16).append(text, 0, first);
        for (int i = first; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\r') {
                out.append("\\r");
            } else if (c == '\n') {
                out.append("\\n");
            } else if (unsafe(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static int firstUnsafe(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (unsafe(text.charAt(i))) {
                return i;
            }
        }
        return -1;
    }

    private static boolean unsafe(char c) {
        return (c < 0x20 && c != '\t') || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029';
    }
}
