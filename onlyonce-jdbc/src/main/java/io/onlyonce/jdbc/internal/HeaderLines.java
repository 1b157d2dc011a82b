package io.onlyonce.jdbc.internal;

import io.onlyonce.StoredResponse.Header;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * Response headers as text: one {@code name: value} line per header, in order, lines separated by
 * LF. Header names are tokens (no colon) and values hold no CR or LF, so every list round-trips;
 * no headers is the empty text.
 */
public final class HeaderLines {

    private HeaderLines() {
    }

    /** The headers as text, one line each. */
    public static String encode(List<Header> headers) {
        StringJoiner lines = new StringJoiner("\n");
        for (Header header : headers) {
            lines.add(header.name() + ": " + header.value());
        }
        return lines.toString();
    }

    /**
     * The headers of a text made by {@link #encode}.
     *
     * @throws IllegalStateException when a line has no name
     */
    public static List<Header> decode(String text) {
        if (text.isEmpty()) {
            return List.of();
        }
        List<Header> headers = new ArrayList<>();
        for (String line : text.split("\n", -1)) {
            int colon = line.indexOf(':');
            if (colon < 1) {
                throw new IllegalStateException("stored header line without a name");
            }
            String value = line.substring(colon + 1);
            headers.add(new Header(line.substring(0, colon), value.startsWith(" ") ? value.substring(1) : value));
        }
        return headers;
    }
}
