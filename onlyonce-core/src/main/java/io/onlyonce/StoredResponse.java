package io.onlyonce;

import io.onlyonce.support.StrictUtf8;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The outcome of a first execution, kept so that a retry gets the same bytes: status, the headers
 * chosen for replay (for example {@code Location}) and the body.
 *
 * <p>This is the one place that decides what can be stored: whatever passes this constructor,
 * every store keeps and gives back unchanged. A header name is an RFC 9110 token; a header value is
 * well-formed text of any length without control characters other than horizontal tab (no CR, LF
 * or NUL, which no HTTP field may carry and which some databases cannot hold).
 *
 * @param status HTTP-style status code, 100 to 599
 * @param headers headers to replay, in order
 * @param body the body bytes (kept as a defensive copy)
 */
public record StoredResponse(int status, List<Header> headers, byte[] body) {

    public StoredResponse {
        if (status < 100 || status > 599) {
            throw new IllegalArgumentException("status must be between 100 and 599");
        }
        if (headers == null || body == null) {
            throw new IllegalArgumentException("headers and body are required");
        }
        headers = List.copyOf(headers);
        body = body.clone();
    }

    public static StoredResponse of(int status, byte[] body) {
        return new StoredResponse(status, List.of(), body);
    }

    /** The body bytes (a copy). */
    @Override
    public byte[] body() {
        return body.clone();
    }

    /** The first header with this name, compared ignoring case. */
    public Optional<String> header(String name) {
        return headers.stream().filter(h -> h.name().equalsIgnoreCase(name)).map(Header::value).findFirst();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof StoredResponse that
                && status == that.status
                && headers.equals(that.headers)
                && Arrays.equals(body, that.body);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * status + headers.hashCode()) + Arrays.hashCode(body);
    }

    @Override
    public String toString() {
        return "StoredResponse[status=" + status + ", headers=" + headers + ", body=" + body.length + " bytes]";
    }

    /**
     * One response header.
     *
     * @param name a header field name (an RFC 9110 token)
     * @param value a header value: well-formed text without control characters except HTAB
     */
    public record Header(String name, String value) {

        public Header {
            if (name == null || name.isEmpty()) {
                throw new IllegalArgumentException("header name must not be empty");
            }
            for (int i = 0; i < name.length(); i++) {
                char c = name.charAt(i);
                if (c <= 0x20 || c >= 0x7F || "\"(),/:;<=>?@[\\]{}".indexOf(c) >= 0) {
                    throw new IllegalArgumentException("header name is not a token");
                }
            }
            if (value == null) {
                throw new IllegalArgumentException("header value must not be null");
            }
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if ((c < 0x20 && c != '\t') || c == 0x7F) {
                    throw new IllegalArgumentException("header value must not contain control characters");
                }
            }
            if (!StrictUtf8.isWellFormed(value)) {
                throw new IllegalArgumentException("header value is not well-formed UTF-16");
            }
        }
    }
}
