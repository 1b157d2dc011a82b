package io.onlyonce.spring.web;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.util.FastByteArrayOutputStream;

/**
 * A response that passes everything through until {@link #startCapture()}; from then on the body
 * is held back (flushes do not commit) until {@link #copyBodyToResponse()}, so the record is
 * completed before the client sees its answer and a prompt retry is replayed rather than told
 * "in progress".
 *
 * <p>It also remembers which headers the response had when the capture started (an outer filter's
 * {@code X-Request-ID}, CORS and security headers set before the chain), so that only the headers
 * written for the answer itself are {@link #headersWrittenWhileCapturing() stored with it}.
 */
final class CapturingResponse extends HttpServletResponseWrapper {

    private @Nullable FastByteArrayOutputStream buffer;
    private @Nullable ServletOutputStream stream;
    private @Nullable PrintWriter writer;
    private boolean errorSent;
    private Map<String, List<String>> headersBefore = Map.of();

    CapturingResponse(HttpServletResponse response) {
        super(response);
    }

    /** Holds back the body from now on. Fails if the response is already committed. */
    void startCapture() {
        startCapture(currentHeaders());
    }

    /**
     * Holds back the body from now on, taking {@code headersBefore} as the headers the response had
     * before the answer was written (those of the capture of the first dispatch, for an error page).
     */
    void startCapture(Map<String, List<String>> headersBefore) {
        if (getResponse().isCommitted()) {
            throw new IllegalStateException("response committed before the idempotent method ran");
        }
        this.headersBefore = headersBefore;
        buffer = new FastByteArrayOutputStream(1024);
    }

    /** The headers, by lower-case name, that the response had when the capture started. */
    Map<String, List<String>> headersBeforeCapture() {
        return headersBefore;
    }

    /**
     * The headers written since the capture started, by the name they were written under, each with
     * all its values: those absent then, and those whose values changed since. Content-Type is the
     * container's to report (see {@link #getContentType()}); it may or may not be among them.
     */
    Map<String, List<String>> headersWrittenWhileCapturing() {
        Map<String, List<String>> written = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        for (String name : getHeaderNames()) {
            String lower = name.toLowerCase(Locale.ROOT);
            List<String> values = new ArrayList<>(getHeaders(name));
            if (seen.add(lower) && !values.equals(headersBefore.get(lower))) {
                written.put(name, values);
            }
        }
        return written;
    }

    /** Every header now set, by lower-case name, with its values in order. */
    private Map<String, List<String>> currentHeaders() {
        Map<String, List<String>> headers = new HashMap<>();
        for (String name : getHeaderNames()) {
            headers.computeIfAbsent(name.toLowerCase(Locale.ROOT), n -> new ArrayList<>(getHeaders(name)));
        }
        return headers;
    }

    boolean isCapturing() {
        return buffer != null;
    }

    /** Whether {@code sendError} was called while capturing: the body is then the container's, not ours. */
    boolean isErrorSent() {
        return errorSent;
    }

    /** The body written so far while capturing. */
    byte[] capturedBody() {
        if (writer != null) {
            writer.flush();
        }
        return buffer == null ? new byte[0] : buffer.toByteArray();
    }

    /** Drops what was captured and stops capturing, so a replay can be written instead. */
    void discardCapture() {
        if (writer != null) {
            writer.flush();
        }
        buffer = null;
        stream = null;
        writer = null;
    }

    /** Writes the held-back body to the real response and stops capturing. */
    void copyBodyToResponse() throws IOException {
        if (buffer == null) {
            return;
        }
        byte[] body = capturedBody();
        buffer = null;
        if (errorSent) {
            // the container answers with its error page; whatever was written after sendError is dropped
            return;
        }
        HttpServletResponse real = (HttpServletResponse) getResponse();
        if (!real.isCommitted()) {
            real.setContentLength(body.length);
        }
        if (body.length > 0) {
            real.getOutputStream().write(body);
        }
        real.flushBuffer();
    }

    @Override
    public ServletOutputStream getOutputStream() throws IOException {
        FastByteArrayOutputStream target = buffer;
        if (target == null) {
            return super.getOutputStream();
        }
        if (stream == null) {
            stream = new ServletOutputStream() {
                @Override
                public void write(int b) throws IOException {
                    target.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    target.write(b, off, len);
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setWriteListener(WriteListener listener) {
                    throw new UnsupportedOperationException("asynchronous writes are not captured");
                }
            };
        }
        return stream;
    }

    @Override
    public PrintWriter getWriter() throws IOException {
        if (buffer == null) {
            return super.getWriter();
        }
        if (writer == null) {
            writer = new PrintWriter(new OutputStreamWriter(getOutputStream(), Charset.forName(getCharacterEncoding())));
        }
        return writer;
    }

    @Override
    public void flushBuffer() throws IOException {
        if (buffer == null) {
            super.flushBuffer();
        } else if (writer != null) {
            writer.flush();
        }
    }

    @Override
    public void setContentLength(int len) {
        if (buffer == null) {
            super.setContentLength(len);
        }
    }

    @Override
    public void setContentLengthLong(long len) {
        if (buffer == null) {
            super.setContentLengthLong(len);
        }
    }

    @Override
    public void setBufferSize(int size) {
        if (buffer == null) {
            super.setBufferSize(size);
        }
    }

    @Override
    public void resetBuffer() {
        if (buffer != null) {
            buffer.reset();
        }
        super.resetBuffer();
    }

    @Override
    public void reset() {
        if (buffer != null) {
            buffer.reset();
        }
        super.reset();
    }

    @Override
    public void sendError(int sc) throws IOException {
        markError();
        super.sendError(sc);
    }

    @Override
    public void sendError(int sc, String msg) throws IOException {
        markError();
        super.sendError(sc, msg);
    }

    private void markError() {
        if (buffer != null) {
            errorSent = true;
        }
    }
}
