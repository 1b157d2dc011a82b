package io.onlyonce.example.seckill.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses a request body sent with a {@code Content-Encoding} other than {@code identity} (gzip, say;
 * a request without a body passes whatever it says):
 * 415 {@code unsupported-media-type} with {@code Accept-Encoding: identity} (RFC 7694). Nothing here
 * decompresses, and a compressed body must not be read as if it were plain. Runs after Spring
 * Security (an unauthenticated request is 401 first, and the answer has the security headers) and
 * before the request window, which must not remember a request that was never taken.
 */
public final class ContentEncodingFilter extends OncePerRequestFilter {

    private final ProblemWriter problems;

    public ContentEncodingFilter(ProblemWriter problems) {
        this.problems = problems;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String coding = request.getHeader("Content-Encoding");
        boolean body = request.getContentLengthLong() > 0 || request.getHeader("Transfer-Encoding") != null;
        if (body && coding != null && !identity(coding)) {
            response.setHeader("Accept-Encoding", "identity");
            problems.write(request, response, AppProblem.UNSUPPORTED_MEDIA_TYPE);
            return;
        }
        chain.doFilter(request, response);
    }

    /** Whether every coding listed is {@code identity} (or the list is empty). */
    static boolean identity(String codings) {
        for (String coding : codings.split(",")) {
            String name = coding.strip();
            if (!name.isEmpty() && !"identity".equalsIgnoreCase(name)) {
                return false;
            }
        }
        return true;
    }
}
