package io.onlyonce.example.seckill.seckill;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.onlyonce.example.seckill.web.BodyLimitFilter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HexFormat;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.http.server.PathContainer;
import org.springframework.util.NumberUtils;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.WebUtils;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What "the same flash-sale request" means to the request window (the OnlyOnce starter's de-dup
 * filter, which runs next): the parsed, normalised request, not its text. Sets the request header
 * {@value #HEADER} (dropping any value the client sent under that name) to
 * <ul>
 *   <li>{@code token:<activityId>} for {@code POST /api/seckill/activities/{activityId}/tokens},</li>
 *   <li>{@code order:<activityId>:<productId>:<quantity>} for {@code POST /api/seckill/activities/{activityId}/orders},</li>
 * </ul>
 * with ids as numbers ({@code 01}, {@code +1}, {@code 0x1} and {@code %31} are 1, as Spring reads the path variable), an absent {@code productId}
 * resolved to the product the order will buy (the activity's first), an absent {@code quantity} as
 * 1, and every other body field left out. So writing the id differently or adding a field does not
 * make a new request. A body that is no valid order (the endpoint answers it 400) is keyed by its
 * SHA-256, so the corrected request that follows is not held back. The de-dup rule fingerprints
 * {@code [principal, "header:X-Seckill-Dedup-Key"]} (application.yml, {@code onlyonce.dedup.rules}).
 */
public final class DedupKeyFilter extends OncePerRequestFilter {

    /** The header the de-dup rule reads. */
    public static final String HEADER = "X-Seckill-Dedup-Key";

    private static final PathPattern TOKENS = PathPatternParser.defaultInstance.parse("/api/seckill/activities/{activityId}/tokens");
    private static final PathPattern ORDERS = PathPatternParser.defaultInstance.parse("/api/seckill/activities/{activityId}/orders");
    private static final JsonMapper JSON = JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    private final ActivityRepository activities;
    /** Activity → the product an order without {@code productId} buys; read once per activity and a few seconds. */
    private final Cache<Long, String> defaultProducts = Caffeine.newBuilder().maximumSize(10_000)
            .expireAfterWrite(Duration.ofSeconds(10)).build();

    public DedupKeyFilter(ActivityRepository activities) {
        this.activities = activities;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String key = "POST".equals(request.getMethod()) ? key(request) : null;
        if (key == null && request.getHeader(HEADER) == null) {
            chain.doFilter(request, response);
            return;
        }
        chain.doFilter(new WithKey(request, key), response);
    }

    private @Nullable String key(HttpServletRequest request) {
        PathContainer path = PathContainer.parsePath(request.getRequestURI().substring(request.getContextPath().length()));
        PathPattern.PathMatchInfo token = TOKENS.matchAndExtract(path);
        if (token != null) {
            return "token:" + number(token.getUriVariables().get("activityId"));
        }
        PathPattern.PathMatchInfo order = ORDERS.matchAndExtract(path);
        if (order == null) {
            return null;
        }
        String activity = number(order.getUriVariables().get("activityId"));
        BodyLimitFilter.BufferedBodyRequest buffered = WebUtils.getNativeRequest(request, BodyLimitFilter.BufferedBodyRequest.class);
        byte[] body = buffered == null ? new byte[0] : buffered.body();
        String fields = body.length == 0 ? null : orderFields(activity, body);
        return "order:" + activity + ":" + (fields != null ? fields : "invalid:" + sha256(body));
    }

    /** {@code <productId>:<quantity>} of a valid order body, or null. */
    private @Nullable String orderFields(String activity, byte[] body) {
        JsonNode json;
        try {
            json = JSON.readTree(body);
        } catch (JacksonException e) {
            return null;
        }
        if (json == null || !json.isObject()) {
            return null;
        }
        Long product = integer(json.get("productId"));
        Long quantity = integer(json.get("quantity"));
        if (product == null && present(json.get("productId")) || quantity == null && present(json.get("quantity"))) {
            return null;
        }
        String productId = product != null ? Long.toString(product) : defaultProduct(activity);
        return productId + ":" + (quantity != null ? quantity : 1);
    }

    private String defaultProduct(String activity) {
        long id;
        try {
            id = Long.parseLong(activity);
        } catch (NumberFormatException e) {
            return "none";
        }
        return defaultProducts.get(id, a -> {
            List<SeckillStock> stock = activities.stock(a);
            return stock.isEmpty() ? "none" : Long.toString(stock.get(0).productId());
        });
    }

    private static boolean present(@Nullable JsonNode node) {
        return node != null && !node.isNull();
    }

    private static @Nullable Long integer(@Nullable JsonNode node) {
        return node != null && node.isIntegralNumber() && node.canConvertToLong() ? node.longValue() : null;
    }

    /** A path variable as a number when it is one, else as sent. */
    private static String number(@Nullable String value) {
        if (value == null) {
            return "";
        }
        try {
            // as Spring's conversion reads the path variable: 0x1, #1, 01 and " 1" are all 1
            return Long.toString(NumberUtils.parseNumber(value, Long.class));
        } catch (IllegalArgumentException e) {
            return "raw:" + value;
        }
    }

    private static String sha256(byte[] body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
    }

    /** The request with {@value #HEADER} set to the key (or removed). */
    static final class WithKey extends HttpServletRequestWrapper {

        private final @Nullable String key;

        WithKey(HttpServletRequest request, @Nullable String key) {
            super(request);
            this.key = key;
        }

        @Override
        public @Nullable String getHeader(String name) {
            return HEADER.equalsIgnoreCase(name) ? key : super.getHeader(name);
        }

        @Override
        public Enumeration<String> getHeaders(String name) {
            if (HEADER.equalsIgnoreCase(name)) {
                return Collections.enumeration(key == null ? List.of() : List.of(key));
            }
            return super.getHeaders(name);
        }

        @Override
        public Enumeration<String> getHeaderNames() {
            List<String> names = new ArrayList<>();
            for (String name : Collections.list(super.getHeaderNames())) {
                if (!HEADER.equalsIgnoreCase(name)) {
                    names.add(name);
                }
            }
            if (key != null) {
                names.add(HEADER);
            }
            return Collections.enumeration(names);
        }
    }
}
