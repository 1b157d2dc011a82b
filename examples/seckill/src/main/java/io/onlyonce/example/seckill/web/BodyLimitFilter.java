package io.onlyonce.example.seckill.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses request bodies larger than the limit (413 problem) before anything reads them, whether
 * the size is announced ({@code Content-Length}) or not (chunked). A body within the limit is read
 * once into memory and served from there to whoever reads it next.
 */
public final class BodyLimitFilter extends OncePerRequestFilter {

    private final int limit;
    private final ProblemWriter problems;

    public BodyLimitFilter(int limit, ProblemWriter problems) {
        this.limit = limit;
        this.problems = problems;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        long announced = request.getContentLengthLong();
        boolean chunked = request.getHeader("Transfer-Encoding") != null;
        if (announced <= 0 && !chunked) {
            chain.doFilter(request, response);
            return;
        }
        if (announced > limit) {
            problems.write(request, response, AppProblem.PAYLOAD_TOO_LARGE, Integer.toString(limit));
            return;
        }
        byte[] body = request.getInputStream().readNBytes(limit + 1);
        if (body.length > limit) {
            problems.write(request, response, AppProblem.PAYLOAD_TOO_LARGE, Integer.toString(limit));
            return;
        }
        chain.doFilter(new BufferedBodyRequest(request, body), response);
    }

    /** The request with its body already in memory; every {@link #getInputStream()} reads it from the start. */
    public static final class BufferedBodyRequest extends HttpServletRequestWrapper {

        private final byte[] body;

        BufferedBodyRequest(HttpServletRequest request, byte[] body) {
            super(request);
            this.body = body;
        }

        /** The body (not a copy: do not change it). */
        public byte[] body() {
            return body;
        }

        @Override
        public int getContentLength() {
            return body.length;
        }

        @Override
        public long getContentLengthLong() {
            return body.length;
        }

        @Override
        public ServletInputStream getInputStream() {
            ByteArrayInputStream in = new ByteArrayInputStream(body);
            return new ServletInputStream() {
                @Override
                public int read() {
                    return in.read();
                }

                @Override
                public int read(byte[] b, int off, int len) {
                    return in.read(b, off, len);
                }

                @Override
                public boolean isFinished() {
                    return in.available() == 0;
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setReadListener(ReadListener listener) {
                    throw new UnsupportedOperationException("the body is already read");
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
}
