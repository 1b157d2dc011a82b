package io.onlyonce.example.seckill.page;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingResponseWrapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * Test only, in front of every other filter: counts the flash-sale token and order requests that
 * reach the service, fails the next ones as a broken network would, delays the answer to the next order request (the order is made at once, its
 * answer arrives late: a slow network), and can answer the next order as the fast path does
 * ({@code 202} + a reservation, then {@code GET /api/seckill/reservations/{id}} QUEUED once, then
 * ORDERED with the real order the service made).
 */
final class PageTestFilter extends OncePerRequestFilter {

    private static final Pattern TOKENS = Pattern.compile("/api/seckill/activities/\\d+/tokens");
    private static final Pattern ORDERS = Pattern.compile("/api/seckill/activities/\\d+/orders");
    private static final Pattern RESERVATION = Pattern.compile("/api/seckill/reservations/([A-Za-z0-9-]+)");
    private static final JsonMapper JSON = JsonMapper.builder().build();

    final AtomicInteger tokenRequests = new AtomicInteger();
    final AtomicInteger idRequests = new AtomicInteger();
    /** The next business-id requests are answered 503, as a business-id service that is down. */
    final AtomicInteger failNextIds = new AtomicInteger();
    final AtomicInteger orderRequests = new AtomicInteger();
    private final AtomicLong delayNextMillis = new AtomicLong();
    private final AtomicInteger failNext = new AtomicInteger();
    private final AtomicBoolean queueNext = new AtomicBoolean();
    private final AtomicReference<String> failNextReservation = new AtomicReference<>();
    private final AtomicInteger reservationIds = new AtomicInteger();
    /** Reservation → the order behind it ({@code failed:<reason>} for one that fails), and how often it was asked for. */
    private final Map<String, String> reservations = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> polls = new ConcurrentHashMap<>();

    /** The answer to the next flash-sale order arrives {@code delay} late. */
    void delayNextOrder(Duration delay) {
        delayNextMillis.set(delay.toMillis());
    }

    /** The next {@code count} flash-sale orders never reach the service: 502, as from a proxy whose upstream is gone. */
    void failNextOrders(int count) {
        failNext.set(count);
    }

    /** The next flash-sale order is answered 202 with a reservation to follow. */
    void queueNextOrder() {
        queueNext.set(true);
    }

    /**
     * The next flash-sale order never reaches the service: it is answered 202, and its reservation
     * turns FAILED with {@code reason} (as the fast path's {@code sold-out}, {@code reservation-lost}).
     */
    void failNextReservation(String reason) {
        failNextReservation.set(reason);
    }

    /** How often the page asked for {@code reservationId}. */
    int polls(String reservationId) {
        return polls.getOrDefault(reservationId, new AtomicInteger()).get();
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String path = request.getRequestURI();
        Matcher reservation = RESERVATION.matcher(path);
        if ("GET".equals(request.getMethod()) && reservation.matches()) {
            answerReservation(reservation.group(1), response);
            return;
        }
        if ("GET".equals(request.getMethod()) && "/api/idempotent/generate".equals(path)) {
            idRequests.incrementAndGet();
            if (failNextIds.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                response.sendError(503);
                return;
            }
        }
        if (!"POST".equals(request.getMethod())) {
            chain.doFilter(request, response);
            return;
        }
        if (TOKENS.matcher(path).matches()) {
            tokenRequests.incrementAndGet();
        }
        if (!ORDERS.matcher(path).matches()) {
            chain.doFilter(request, response);
            return;
        }
        orderRequests.incrementAndGet();
        if (failNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            response.sendError(502);
            return;
        }
        String failure = failNextReservation.getAndSet(null);
        if (failure != null) {
            String id = "r-" + reservationIds.incrementAndGet();
            reservations.put(id, "failed:" + failure);
            response.setStatus(202);
            response.setHeader("Location", "/api/seckill/reservations/" + id);
            response.setContentType("application/json");
            response.getWriter().write("{\"reservationId\":\"" + id + "\",\"status\":\"QUEUED\"}");
            return;
        }
        long delay = delayNextMillis.getAndSet(0);
        boolean queue = queueNext.getAndSet(false);
        ContentCachingResponseWrapper held = new ContentCachingResponseWrapper(response);
        chain.doFilter(request, held);
        if (queue && held.getStatus() == 201) {
            String orderNo = JSON.readTree(held.getContentAsByteArray()).path("orderNo").asString();
            String id = "r-" + reservationIds.incrementAndGet();
            reservations.put(id, orderNo);
            held.resetBuffer();
            held.setStatus(202);
            held.setHeader("Location", "/api/seckill/reservations/" + id);
            held.setContentType("application/json");
            held.getOutputStream().write(("{\"reservationId\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8));
        }
        if (delay > 0) {
            try {
                Thread.sleep(delay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            held.copyBodyToResponse();
        } catch (IOException e) {
            // the page was reloaded meanwhile: nobody waits for this answer any more
        }
    }

    private void answerReservation(String id, HttpServletResponse response) throws IOException {
        String orderNo = reservations.get(id);
        response.setContentType("application/json");
        if (orderNo == null) {
            response.setStatus(404);
            response.getWriter().write("{}");
            return;
        }
        boolean first = polls.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet() == 1;
        String decided = orderNo.startsWith("failed:")
                ? "\"status\":\"FAILED\",\"reason\":\"" + orderNo.substring("failed:".length()) + "\""
                : "\"status\":\"ORDERED\",\"orderNo\":\"" + orderNo + "\"";
        response.getWriter().write("{\"reservationId\":\"" + id + "\"," + (first ? "\"status\":\"QUEUED\"" : decided) + "}");
    }
}
