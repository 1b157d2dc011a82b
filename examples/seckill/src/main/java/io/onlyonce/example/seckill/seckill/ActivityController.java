package io.onlyonce.example.seckill.seckill;

import io.onlyonce.example.seckill.fastpath.RedisStock;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.dao.DataAccessException;
import io.onlyonce.example.seckill.auth.CurrentUser;
import io.onlyonce.example.seckill.web.ApiException;
import io.onlyonce.example.seckill.web.AppProblem;
import io.onlyonce.token.IssuedToken;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Flash sales: {@code GET /api/seckill/activities[/{activityId}]} with live stock, and
 * {@code POST /api/seckill/activities/{activityId}/tokens}, which issues the one-time token an
 * order of this user in this activity needs, while the sale runs and has stock left (a user's token
 * requests are rate-limited: {@code limits.RequestRates}).
 */
@RestController
public class ActivityController {

    private final ActivityRepository activities;
    private final SeckillService seckill;
    private final SeckillTokens tokens;
    private final Clock clock;
    private final @Nullable RedisStock fastPath;

    public ActivityController(ActivityRepository activities, SeckillService seckill, SeckillTokens tokens, Clock clock,
            ObjectProvider<RedisStock> fastPath) {
        this.fastPath = fastPath.getIfAvailable();
        this.activities = activities;
        this.seckill = seckill;
        this.tokens = tokens;
        this.clock = clock;
    }

    /**
     * A flash sale and its products.
     *
     * @param id the activity id
     * @param name the name
     * @param startsAt when buying opens
     * @param endsAt when buying closes
     * @param running whether it is open now
     * @param millisLeft how long it stays open from now, on the service's clock (0 once it ended): a
     *     page counts down from this, not from its device's clock, which may be off
     * @param products each product with its flash-sale price and the stock left now
     */
    public record ActivityView(long id, String name, Instant startsAt, Instant endsAt, boolean running, long millisLeft,
            List<ProductStock> products) {
    }

    /**
     * One product of a flash sale.
     *
     * @param productId the product
     * @param name its name
     * @param price the flash-sale price
     * @param regularPrice the product's price outside the sale, shown beside it
     * @param initialStock what the sale started with
     * @param stock what is left now (on the fast path: what Redis still sells, which the database
     *     follows as the queue drains)
     */
    public record ProductStock(long productId, String name, BigDecimal price, BigDecimal regularPrice, int initialStock,
            int stock) {
    }

    /**
     * A one-time token.
     *
     * @param token send it as {@code Idempotency-Token} with exactly one order
     * @param expiresAt when it stops being accepted
     * @param activityId the flash sale it is for
     */
    public record TokenView(String token, Instant expiresAt, long activityId) {
    }

    /** On the fast path, the stock Redis still sells, per product; empty when Redis does not hold the sale or is down. */
    private Map<Object, Object> liveStock(long activityId) {
        if (fastPath == null) {
            return Map.of();
        }
        try {
            return fastPath.stock(activityId);
        } catch (DataAccessException e) {
            return Map.of();
        }
    }

    @GetMapping("/api/seckill/activities")
    public List<ActivityView> list() {
        return activities.findAll().stream().map(this::view).toList();
    }

    @GetMapping("/api/seckill/activities/{activityId}")
    public ActivityView get(@PathVariable long activityId) {
        return view(activities.find(activityId).orElseThrow(() -> new ApiException(AppProblem.ACTIVITY_NOT_FOUND)));
    }

    @PostMapping("/api/seckill/activities/{activityId}/tokens")
    @ResponseStatus(HttpStatus.CREATED)
    public TokenView token(@PathVariable long activityId, @AuthenticationPrincipal Jwt jwt) {
        seckill.tokenableActivity(activityId);
        IssuedToken issued = tokens.issue(CurrentUser.of(jwt).username(), activityId);
        return new TokenView(issued.value(), issued.expiresAt(), activityId);
    }

    private ActivityView view(Activity activity) {
        Map<Object, Object> live = liveStock(activity.id());
        List<ProductStock> products = activities.stock(activity.id()).stream()
                .map(s -> new ProductStock(s.productId(), s.productName(), s.price(), s.regularPrice(), s.initialStock(),
                        live.get(Long.toString(s.productId())) instanceof String left ? Integer.parseInt(left) : s.stock()))
                .toList();
        Instant now = clock.instant();
        return new ActivityView(activity.id(), activity.name(), activity.startsAt(), activity.endsAt(),
                activity.isRunningAt(now), Math.max(0, activity.endsAt().toEpochMilli() - now.toEpochMilli()), products);
    }
}
