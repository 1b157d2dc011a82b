package io.onlyonce.spring.dedup;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.SequenceInputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * A request whose first {@code limit} body bytes were read ahead (to fingerprint them) and are
 * served again, followed by the rest of the original stream, to whoever reads the body next.
 */
final class CachedBodyRequest extends HttpServletRequestWrapper {

    private final byte[] head;
    private final InputStream body;

    CachedBodyRequest(HttpServletRequest request, int limit) throws IOException {
        super(request);
        InputStream original = request.getInputStream();
        this.head = original.readNBytes(limit);
        this.body = new SequenceInputStream(new ByteArrayInputStream(head), original);
    }

    /** The body bytes read ahead (all of it when shorter than the limit). */
    byte[] head() {
        return head;
    }

    @Override
    public ServletInputStream getInputStream() {
        return new ServletInputStream() {
            private boolean finished;

            @Override
            public int read() throws IOException {
                int b = body.read();
                finished = b < 0;
                return b;
            }

            @Override
            public int read(byte[] buffer, int off, int len) throws IOException {
                int n = body.read(buffer, off, len);
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
                throw new UnsupportedOperationException("asynchronous reads are not supported after de-dup");
            }
        };
    }

    @Override
    public BufferedReader getReader() {
        String encoding = getCharacterEncoding();
        Charset charset = encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
        return new BufferedReader(new InputStreamReader(getInputStream(), charset));
    }
}
