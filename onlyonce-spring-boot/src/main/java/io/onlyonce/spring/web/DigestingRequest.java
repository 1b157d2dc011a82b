package io.onlyonce.spring.web;

import io.onlyonce.Fingerprint;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.Part;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.commons.io.output.DeferredFileOutputStream;
import org.jspecify.annotations.Nullable;
import org.springframework.http.MediaType;

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
 * buffered without bound. Bodies over {@code maxBytes} cannot be fingerprinted: {@link #addBodyTo}
 * answers {@link BodyTooLargeException}. Form and multipart bodies, which the container parses from
 * its own stream, are fingerprinted through their parameters and their parts (each part streamed
 * through its own digest) instead.
 *
 * <p>{@link #close()} deletes the spool; the filter that made the request calls it when the request
 * ends. Not thread-safe, like a request.
 */
public final class DigestingRequest extends HttpServletRequestWrapper implements AutoCloseable {

    /** Bodies larger than this are fingerprinted by their digest only, never in canonical JSON form. */
    public static final int CANONICAL_JSON_LIMIT = 1024 * 1024;
    private static final int SPOOL_MEMORY_THRESHOLD = 256 * 1024;

    /** The body is larger than can be fingerprinted. */
    public static final class BodyTooLargeException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BodyTooLargeException() {
            super("request body too large to fingerprint", null, false, false);
        }
    }

    private final long maxBytes;
    private final MessageDigest sha256 = sha256();
    private @Nullable ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private long length;
    private @Nullable InputStream original;
    private @Nullable InputStream rest;
    private @Nullable DeferredFileOutputStream spool;
    private @Nullable ServletInputStream stream;
    private @Nullable BufferedReader reader;
    private byte @Nullable [] digest;
    private boolean tooLarge;

    /** @param maxBytes the largest body that is fingerprinted */
    public DigestingRequest(HttpServletRequest request, long maxBytes) {
        super(request);
        this.maxBytes = maxBytes;
    }

    /**
     * Adds the body to {@code fingerprint}: a form by its sorted parameters, a multipart body by each
     * part's name, file name, type and content digest, a JSON body of up to 1 MiB in canonical form,
     * anything else by its SHA-256. Reads the rest of the body if nobody has.
     *
     * @throws BodyTooLargeException when the body is larger than {@code maxBytes}
     */
    public void addBodyTo(Fingerprint.Builder fingerprint) {
        MediaType type = contentType();
        try {
            if (type != null && MediaType.APPLICATION_FORM_URLENCODED.includes(type)) {
                fingerprint.add("form").add(sortedParameters());
            } else if (type != null && type.getType().equalsIgnoreCase("multipart")) {
                fingerprint.add("multipart");
                addParts(fingerprint);
            } else {
                byte[] whole = drain();
                if (whole != null && type != null && isJson(type)) {
                    fingerprint.add("json").addJson(whole);
                } else {
                    fingerprint.add("sha256").add(digest());
                }
            }
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

    /** Whether the body is a form or multipart body, which the container parses itself. */
    public boolean isParsedByContainer() {
        MediaType type = contentType();
        return type != null && (MediaType.APPLICATION_FORM_URLENCODED.includes(type)
                || type.getType().equalsIgnoreCase("multipart"));
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
        DeferredFileOutputStream spooled = spool;
        spool = null;
        if (spooled != null && !spooled.isInMemory()) {
            try {
                Files.deleteIfExists(spooled.getPath());
            } catch (IOException e) {
                // a leftover temporary file is harmless
            }
        }
    }

    private int readBody(byte[] buffer, int offset, int count) throws IOException {
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
        if (rest == null && !tooLarge) {
            DeferredFileOutputStream out = DeferredFileOutputStream.builder()
                    .setThreshold(SPOOL_MEMORY_THRESHOLD).setPrefix("onlyonce-body-").setSuffix(".tmp").get();
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

    private String sortedParameters() {
        Map<String, String[]> sorted = new TreeMap<>(getRequest().getParameterMap());
        StringBuilder text = new StringBuilder();
        sorted.forEach((name, values) -> {
            for (String value : values) {
                text.append(name.length()).append(':').append(name).append('=')
                        .append(value.length()).append(':').append(value).append('&');
            }
        });
        return text.toString();
    }

    private void addParts(Fingerprint.Builder fingerprint) throws IOException {
        List<Part> parts;
        try {
            parts = new ArrayList<>(((HttpServletRequest) getRequest()).getParts());
        } catch (ServletException | IllegalStateException e) {
            throw new IOException("multipart body cannot be parsed", e);
        }
        for (Part part : parts) {
            fingerprint.add(part.getName())
                    .add(part.getSubmittedFileName() == null ? "" : "file:" + part.getSubmittedFileName())
                    .add(part.getContentType() == null ? "" : part.getContentType().toLowerCase(Locale.ROOT));
            MessageDigest content = sha256();
            byte[] buffer = new byte[8192];
            try (InputStream in = part.getInputStream()) {
                int n;
                while ((n = in.read(buffer)) > 0) {
                    content.update(buffer, 0, n);
                }
            }
            fingerprint.add(content.digest());
        }
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
