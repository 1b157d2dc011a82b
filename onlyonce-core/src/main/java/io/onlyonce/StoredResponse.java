package io.onlyonce;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The outcome of a first execution, kept so that a retry gets the same bytes: status, the headers
 * chosen for replay (for example {@code Location}) and the body.
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
     * @param value a header value without CR or LF
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
            if (value == null || value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0) {
                throw new IllegalArgumentException("header value must not contain CR or LF");
            }
        }
    }
}
