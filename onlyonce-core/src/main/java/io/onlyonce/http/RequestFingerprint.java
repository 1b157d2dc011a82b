package io.onlyonce.http;

import io.onlyonce.Fingerprint;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The business fingerprint of an HTTP request, the one recipe of every platform: SHA-256, each
 * part length-prefixed, over the method, the path and the query string as sent, the body, and the
 * values of the chosen headers. The body is, by its kind: none; a JSON document in canonical form
 * (keys sorted at every level, whitespace removed, numbers as written), so that a client that
 * reorders fields sends the same request; a form's fields sorted; a multipart body's parts, each
 * by its name, file name, content type and content; anything else by the SHA-256 of its bytes.
 *
 * <p>Two platforms that see the same request with no body, a JSON body, a form, a multipart body or
 * any other body compute the same fingerprint, so such a retry answered by another instance, on
 * another stack, is still recognised. Spring MVC and WebFlux take a form by its parameters, the
 * query string's and the body's ({@link Body.Form#of}), and a multipart body by its parts, on
 * WebFlux since this version (before: both by their bytes).
 */
public final class RequestFingerprint {

    /**
     * The largest JSON body taken in canonical form (1 MiB); a larger one is taken by the SHA-256 of
     * its bytes, on every platform.
     */
    public static final int CANONICAL_JSON_LIMIT = 1024 * 1024;

    private RequestFingerprint() {
    }

    /** A request body, as the fingerprint takes it. */
    public sealed interface Body {

        /** The request has no body. */
        Body NONE = new None();

        /** No body. */
        record None() implements Body {
        }

        /**
         * A JSON document (a body of a JSON media type, small enough to canonicalise); one that does
         * not parse is hashed as it is.
         *
         * @param document the body's bytes
         */
        record Json(byte[] document) implements Body {
            public Json {
                Objects.requireNonNull(document, "document");
            }
        }

        /**
         * A form ({@code application/x-www-form-urlencoded}) by its fields.
         *
         * @param sortedFields the decoded fields, sorted, as the platform writes them
         */
        record Form(String sortedFields) implements Body {

            /**
             * A form by {@code fields} (decoded): sorted by name, each value, in the order given, as
             * its name's and its own length, {@code :}, and the text ({@code 4:item=5:phone&}), so
             * no two forms write the same text.
             */
            public static Form of(Map<String, ? extends List<String>> fields) {
                StringBuilder text = new StringBuilder();
                new TreeMap<String, List<String>>(fields).forEach((name, values) -> {
                    for (String value : values) {
                        text.append(name.length()).append(':').append(name).append('=')
                                .append(value.length()).append(':').append(value).append('&');
                    }
                });
                return new Form(text.toString());
            }
        }

        /**
         * A multipart body by its parts, in order.
         *
         * @param parts the parts
         */
        record Multipart(List<Part> parts) implements Body {
            public Multipart {
                parts = List.copyOf(parts);
            }
        }

        /**
         * Any other body, by the SHA-256 of its bytes (taken as it streams).
         *
         * @param sha256 the digest
         */
        record Opaque(byte[] sha256) implements Body {
            public Opaque {
                Objects.requireNonNull(sha256, "sha256");
            }
        }
    }

    /**
     * One part of a multipart body.
     *
     * @param name the part's name
     * @param fileName the submitted file name, or null
     * @param contentType the part's content type, or null
     * @param sha256 the SHA-256 of its content
     */
    public record Part(String name, @Nullable String fileName, @Nullable String contentType, byte[] sha256) {
    }

    /**
     * A header the fingerprint includes.
     *
     * @param name its name, as configured
     * @param values its values, in order (none when the request does not carry it)
     */
    public record Header(String name, List<String> values) {
        public Header {
            values = List.copyOf(values);
        }
    }

    /**
     * The fingerprint of a request.
     *
     * @param method the HTTP method
     * @param rawPath the path as sent, not decoded
     * @param rawQuery the query string as sent, or null
     */
    public static Fingerprint of(String method, String rawPath, @Nullable String rawQuery, Body body, List<Header> headers) {
        Fingerprint.Builder builder = Fingerprint.builder()
                .add(method)
                .add(rawPath)
                .add(rawQuery == null ? "" : rawQuery);
        addBody(builder, body);
        for (Header header : headers) {
            builder.add(header.name().toLowerCase(Locale.ROOT));
            builder.add(String.join("\n", header.values()));
        }
        return builder.build();
    }

    /**
     * Adds {@code body} to a fingerprint as this recipe does: for a fingerprint of one's own that
     * includes the body (the servlet de-dup window's).
     */
    public static Fingerprint.Builder addBody(Fingerprint.Builder builder, Body body) {
        if (body instanceof Body.Json json) {
            builder.add("json").addJson(json.document());
        } else if (body instanceof Body.Form form) {
            builder.add("form").add(form.sortedFields());
        } else if (body instanceof Body.Multipart multipart) {
            builder.add("multipart");
            for (Part part : multipart.parts()) {
                builder.add(part.name())
                        .add(part.fileName() == null ? "" : "file:" + part.fileName())
                        .add(part.contentType() == null ? "" : part.contentType().toLowerCase(Locale.ROOT))
                        .add(part.sha256());
            }
        } else if (body instanceof Body.Opaque opaque) {
            builder.add("sha256").add(opaque.sha256());
        } else {
            builder.add("no body");
        }
        return builder;
    }
}
