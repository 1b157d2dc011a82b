package io.onlyonce.example.seckill.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * {@code X-Request-ID}: the caller's (1 to 64 visible ASCII characters) or a new UUID, echoed in the
 * response and put in the MDC ({@code requestId}) of every log line of the request, error pages
 * included. Runs before everything else, so even a 401 or 413 carries it.
 */
public final class RequestIdFilter extends OncePerRequestFilter {

    public static final String HEADER = "X-Request-ID";
    public static final String MDC_KEY = "requestId";
    static final int MAX_LENGTH = 64;

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String echoed = response.getHeader(HEADER);
        String id = echoed != null ? echoed : accepted(request.getHeader(HEADER));
        if (id == null) {
            id = newId();
        }
        response.setHeader(HEADER, id);
        String previous = MDC.get(MDC_KEY);
        MDC.put(MDC_KEY, id);
        try {
            chain.doFilter(request, response);
        } finally {
            if (previous == null) {
                MDC.remove(MDC_KEY);
            } else {
                MDC.put(MDC_KEY, previous);
            }
        }
    }

    @Override
    protected boolean shouldNotFilterErrorDispatch() {
        return false;
    }

    /**
     * A new random (version 4) UUID. A correlation id is not a secret: it is drawn from the thread's
     * own generator, not from {@code UUID.randomUUID()}, whose one JVM-wide {@code SecureRandom}
     * every request thread would queue on.
     */
    static String newId() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long high = (random.nextLong() & ~0xF000L) | 0x4000L;
        long low = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(high, low).toString();
    }

    /** The caller's id when it is 1 to 64 visible ASCII characters, else null. */
    static @Nullable String accepted(@Nullable String value) {
        if (value == null || value.isEmpty() || value.length() > MAX_LENGTH) {
            return null;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x21 || c > 0x7E) {
                return null;
            }
        }
        return value;
    }
}
