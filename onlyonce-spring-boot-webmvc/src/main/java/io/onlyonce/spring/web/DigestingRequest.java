package io.onlyonce.spring.web;

import io.onlyonce.http.FormFields;
import io.onlyonce.http.RequestFingerprint;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.Part;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.SequenceInputStream;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.http.MediaType;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;

/**
 * A request whose body is read once and fingerprinted in full, while whoever reads it next (the
 * handler, a message converter, the de-dup filter) gets exactly the same bytes.
 *
 * <p>Every byte read from the body passes through a streaming SHA-256; the first bytes, up to a
 * limit, are also kept so a JSON body can be fingerprinted in canonical form (field order and
 * whitespace do not count). When the fingerprint is needed before the reader has finished (a
 * handler that reads the body itself later, or the de-dup filter in front of everything), the rest
 * of the body is drained through the digest into a spool, in memory up to 256 KiB and in a
 * temporary file beyond, and the reader's stream goes on from there: nothing is lost and nothing is
 * buffered without bound. Bodies over {@code maxBytes} cannot be fingerprinted: {@link #body}
 * answers {@link BodyTooLargeException}.
 *
 * <p>A form ({@code application/x-www-form-urlencoded}) sent with POST, which the container would
 * parse from its own stream and so take from every later reader, is read here instead, in memory,
 * when it is first needed: its bytes are served again as they were sent, and its fields, decoded
 * with the request's character encoding (UTF-8 when none is set), are the request's parameters,
 * after the query string's as the servlet specification orders them. It is fingerprinted by its
 * fields. Left to the container are a form consumed before this request was wrapped (a filter in
 * front asked for a parameter), one announced larger than {@code maxBytes} (and one found larger
 * while read, whose bytes are still served in full), and a form sent with another method, which the
 * container does not parse (Spring's {@code FormContentFilter} does, in front): those are
 * fingerprinted through the container's parameters, unless too large. Multipart bodies are
 * fingerprinted through their parts, each part streamed through its own digest.
 *
 * <p>{@link #close()} deletes the spool; the filter that made the request calls it when the request
 * ends. Not thread-safe, like a request.
 */
public final class DigestingRequest extends HttpServletRequestWrapper implements AutoCloseable {

    /** Bodies larger than this are fingerprinted by their digest only, never in canonical JSON form. */
    public static final int CANONICAL_JSON_LIMIT = RequestFingerprint.CANONICAL_JSON_LIMIT;
    private static final int SPOOL_MEMORY_THRESHOLD = 256 * 1024;

    /** The body is larger than can be fingerprinted. */
    public static final class BodyTooLargeException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BodyTooLargeException() {
            super("request body too large to fingerprint", null, false, false);
        }
    }

    /** How far a form body was taken over from the container. */
    private enum Form {
        /** Not a POST form, or one left to the container: the parameters are the container's. */
        CONTAINER,
        /** A POST form nobody has needed yet. */
        UNREAD,
        /** A POST form read and parsed here. */
        PARSED
    }

    private final long maxBytes;
    private final MessageDigest sha256 = sha256();
    private @Nullable ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private long length;
    private @Nullable InputStream original;
    private @Nullable InputStream rest;
    private @Nullable Spool spool;
    private @Nullable ServletInputStream stream;
    private @Nullable BufferedReader reader;
    private byte @Nullable [] digest;
    private boolean tooLarge;
    private Form form;
    private @Nullable Map<String, String[]> parameters;

    /** @param maxBytes the largest body that is fingerprinted */
    public DigestingRequest(HttpServletRequest request, long maxBytes) {
        super(request);
        this.maxBytes = maxBytes;
        this.form = "POST".equals(request.getMethod()) && isForm() ? Form.UNREAD : Form.CONTAINER;
    }

    /**
     * The body as the fingerprint takes it ({@link RequestFingerprint}): a form by its parameters
     * sorted by name (the query string's too, the values of a name in the order sent), a multipart
     * body by each part's name, file name, type and content digest, a JSON body of up to 1 MiB in
     * canonical form, anything else by its SHA-256. Reads the rest of the body if nobody has.
     *
     * @throws BodyTooLargeException when the body is larger than {@code maxBytes}
     */
    public RequestFingerprint.Body body() {
        MediaType type = contentType();
        try {
            if (isForm()) {
                return sortedParameters(formParameters());
            }
            if (type != null && type.getType().equalsIgnoreCase("multipart")) {
                return new RequestFingerprint.Body.Multipart(parts());
            }
            byte[] whole = drain();
            if (whole != null && type != null && isJson(type)) {
                return new RequestFingerprint.Body.Json(whole);
            }
            return new RequestFingerprint.Body.Opaque(digest());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The whole body when it is at most {@link #CANONICAL_JSON_LIMIT} bytes (to read fields of a
     * JSON body from), else null. Reads the rest of the body if nobody has.
     *
     * @throws BodyTooLargeException when the body is larger than {@code maxBytes}
     */
    public byte @Nullable [] bodyIfSmall() {
        try {
            return drain();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The fields of a form body, decoded, in the order sent, without the query string's parameters.
     * Reads the body if nobody has.
     *
     * @throws BodyTooLargeException when the body is larger than {@code maxBytes}
     */
    public MultiValueMap<String, String> formFields() {
        try {
            return withoutQuery(formParameters(), query());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether the body is a form ({@code application/x-www-form-urlencoded}). */
    public boolean isForm() {
        MediaType type = contentType();
        return type != null && MediaType.APPLICATION_FORM_URLENCODED.includes(type);
    }

    /** Whether the body is a form or multipart body, fingerprinted by its fields or parts rather than its bytes. */
    public boolean isParsedByContainer() {
        MediaType type = contentType();
        return isForm() || (type != null && type.getType().equalsIgnoreCase("multipart"));
    }

    @Override
    public @Nullable String getParameter(String name) {
        Map<String, String[]> parsed = parsedParameters();
        if (parsed == null) {
            return super.getParameter(name);
        }
        String[] values = parsed.get(name);
        return values == null ? null : values[0];
    }

    @Override
    public Map<String, String[]> getParameterMap() {
        Map<String, String[]> parsed = parsedParameters();
        return parsed == null ? super.getParameterMap() : parsed;
    }

    @Override
    public Enumeration<String> getParameterNames() {
        Map<String, String[]> parsed = parsedParameters();
        return parsed == null ? super.getParameterNames() : Collections.enumeration(parsed.keySet());
    }

    @Override
    public String @Nullable [] getParameterValues(String name) {
        Map<String, String[]> parsed = parsedParameters();
        if (parsed == null) {
            return super.getParameterValues(name);
        }
        String[] values = parsed.get(name);
        return values == null ? null : values.clone();
    }

    @Override
    public ServletInputStream getInputStream() throws IOException {
        if (stream == null) {
            stream = new ServletInputStream() {
                private boolean finished;

                @Override
                public int read() throws IOException {
                    byte[] one = new byte[1];
                    int n = read(one, 0, 1);
                    return n < 0 ? -1 : one[0] & 0xFF;
                }

                @Override
                public int read(byte[] buffer, int offset, int count) throws IOException {
                    int n = readBody(buffer, offset, count);
                    finished = n < 0;
                    return n;
                }

                @Override
                public boolean isFinished() {
                    return finished;
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setReadListener(ReadListener listener) {
                    throw new UnsupportedOperationException("non-blocking reads of a fingerprinted body are not supported");
                }
            };
        }
        return stream;
    }

    @Override
    public BufferedReader getReader() throws IOException {
        if (reader == null) {
            String encoding = getCharacterEncoding();
            Charset charset = encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
            reader = new BufferedReader(new InputStreamReader(getInputStream(), charset));
        }
        return reader;
    }

    /** Deletes the spool file, if the body needed one. */
    @Override
    public void close() {
        Spool spooled = spool;
        spool = null;
        if (spooled != null) {
            spooled.delete();
        }
    }

    private int readBody(byte[] buffer, int offset, int count) throws IOException {
        readForm();
        InputStream spooled = rest;
        if (spooled != null) {
            return spooled.read(buffer, offset, count);
        }
        int n = original().read(buffer, offset, count);
        if (n > 0) {
            account(buffer, offset, n);
        }
        return n;
    }

    private InputStream original() throws IOException {
        if (original == null) {
            original = getRequest().getInputStream();
        }
        return original;
    }

    private void account(byte[] buffer, int offset, int n) {
        sha256.update(buffer, offset, n);
        length += n;
        if (length > maxBytes) {
            tooLarge = true;
        }
        ByteArrayOutputStream head = kept;
        if (head != null) {
            if (length <= CANONICAL_JSON_LIMIT) {
                head.write(buffer, offset, n);
            } else {
                kept = null;
            }
        }
    }

    /** Reads what is left of the body through the digest into the spool; the whole body if small, else null. */
    private byte @Nullable [] drain() throws IOException {
        readForm();
        if (rest == null && !tooLarge) {
            Spool out = new Spool(SPOOL_MEMORY_THRESHOLD);
            spool = out;
            byte[] buffer = new byte[8192];
            InputStream in = original();
            int n;
            while (!tooLarge && (n = in.read(buffer)) > 0) {
                account(buffer, 0, n);
                out.write(buffer, 0, n);
            }
            out.close();
            rest = out.toInputStream();
        }
        if (tooLarge) {
            throw new BodyTooLargeException();
        }
        ByteArrayOutputStream head = kept;
        return head == null ? null : head.toByteArray();
    }

    private byte[] digest() {
        if (digest == null) {
            digest = sha256.digest();
        }
        return digest;
    }

    /**
     * Reads a POST form the first time it is needed, keeps its bytes for the readers and parses its
     * fields; leaves it to the container when it is announced larger than {@code maxBytes} (nothing
     * is read then) or when there is nothing to read (empty, or consumed in front of this wrapper).
     * One found larger while read is served in full but not parsed.
     */
    private void readForm() throws IOException {
        if (form != Form.UNREAD) {
            return;
        }
        form = Form.CONTAINER;
        if (getContentLengthLong() > maxBytes) {
            tooLarge = true;
            return;
        }
        InputStream in = original();
        byte[] body = readUpToLimit(in);
        if (tooLarge) {
            rest = new SequenceInputStream(new ByteArrayInputStream(body), in);
        } else if (body.length > 0) {
            rest = new ByteArrayInputStream(body);
            Charset charset = formCharset();
            parameters = Collections.unmodifiableMap(
                    inServletOrder(query(), parseForm(new String(body, charset), charset)));
            form = Form.PARSED;
        }
    }

    /** Reads {@code in} through the digest until its end or until it is larger than {@code maxBytes}. */
    private byte[] readUpToLimit(InputStream in) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        int n;
        while (!tooLarge && (n = in.read(buffer)) > 0) {
            account(buffer, 0, n);
            body.write(buffer, 0, n);
        }
        return body.toByteArray();
    }

    /** The parameters of a POST form read here, or null when the container's apply. */
    private @Nullable Map<String, String[]> parsedParameters() {
        try {
            readForm();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return parameters;
    }

    /** A form's parameters, the query string's included: parsed here, else the container's. */
    private Map<String, String[]> formParameters() throws IOException {
        readForm();
        if (tooLarge) {
            throw new BodyTooLargeException();
        }
        Map<String, String[]> parsed = parameters;
        return parsed != null ? parsed : getRequest().getParameterMap();
    }

    /** The query string's parameters, decoded as UTF-8 as the container decodes the URI by default. */
    private MultiValueMap<String, String> query() {
        return parseForm(getQueryString(), StandardCharsets.UTF_8);
    }

    private Charset formCharset() {
        String encoding = getCharacterEncoding();
        try {
            return encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
        } catch (IllegalArgumentException e) {
            return StandardCharsets.UTF_8;
        }
    }

    /** The fields of url-encoded text in the order sent, decoded as servlet containers decode them ({@link FormFields}). */
    private static MultiValueMap<String, String> parseForm(@Nullable String text, Charset charset) {
        return new LinkedMultiValueMap<>(FormFields.parse(text, charset));
    }

    /** The parameters in servlet order: a name's query values before its body values, names as they first appear. */
    private static Map<String, String[]> inServletOrder(MultiValueMap<String, String> query,
            MultiValueMap<String, String> body) {
        MultiValueMap<String, String> all = new LinkedMultiValueMap<>();
        query.forEach(all::addAll);
        body.forEach(all::addAll);
        Map<String, String[]> parameters = new LinkedHashMap<>();
        all.forEach((name, values) -> parameters.put(name, values.toArray(String[]::new)));
        return parameters;
    }

    /** The values of {@code parameters} beyond those of {@code query}: the body's fields. */
    private static MultiValueMap<String, String> withoutQuery(Map<String, String[]> parameters,
            MultiValueMap<String, String> query) {
        MultiValueMap<String, String> body = new LinkedMultiValueMap<>();
        parameters.forEach((name, values) -> {
            for (int i = query.getOrDefault(name, List.of()).size(); i < values.length; i++) {
                body.add(name, values[i]);
            }
        });
        return body;
    }

    private static RequestFingerprint.Body.Form sortedParameters(Map<String, String[]> parameters) {
        Map<String, List<String>> fields = new LinkedHashMap<>();
        parameters.forEach((name, values) -> fields.put(name, Arrays.asList(values)));
        return RequestFingerprint.Body.Form.of(fields);
    }

    private List<RequestFingerprint.Part> parts() throws IOException {
        List<Part> parts;
        try {
            parts = new ArrayList<>(((HttpServletRequest) getRequest()).getParts());
        } catch (ServletException | IllegalStateException e) {
            throw new IOException("multipart body cannot be parsed", e);
        }
        List<RequestFingerprint.Part> fingerprinted = new ArrayList<>(parts.size());
        for (Part part : parts) {
            MessageDigest content = sha256();
            byte[] buffer = new byte[8192];
            try (InputStream in = part.getInputStream()) {
                int n;
                while ((n = in.read(buffer)) > 0) {
                    content.update(buffer, 0, n);
                }
            }
            fingerprinted.add(new RequestFingerprint.Part(part.getName(), part.getSubmittedFileName(), part.getContentType(),
                    content.digest()));
        }
        return fingerprinted;
    }

    private @Nullable MediaType contentType() {
        String header = getContentType();
        if (header == null) {
            return null;
        }
        try {
            return MediaType.parseMediaType(header);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static boolean isJson(MediaType type) {
        return type.isCompatibleWith(MediaType.APPLICATION_JSON) || type.getSubtype().endsWith("+json");
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
    }
}
