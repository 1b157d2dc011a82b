package io.onlyonce.example.seckill;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Settings under {@code seckill.*}.
 *
 * @param maxBodySize largest request body accepted (413 above)
 * @param auth the demo login
 * @param payment the payment platform's notifications
 * @param order orders and the unpaid-order sweeper
 * @param onlyonce the OnlyOnce layers of this service
 * @param demoData the catalogue and flash sale created on an empty database
 * @param demo the demo mode (published secrets, the demo sale's restock endpoint)
 * @param limits the per-user abuse limits
 * @param fastPath the flash-sale fast path (stock in Redis, orders written by queue consumers)
 */
@ConfigurationProperties("seckill")
public record SeckillProperties(
        @DefaultValue("16KB") DataSize maxBodySize,
        @DefaultValue Auth auth,
        @DefaultValue Payment payment,
        @DefaultValue Order order,
        @DefaultValue OnlyOnce onlyonce,
        @DefaultValue DemoData demoData,
        @DefaultValue Demo demo,
        @DefaultValue Limits limits,
        @DefaultValue FastPath fastPath,
        @DefaultValue Ids ids) {

    /**
     * The demo login.
     *
     * @param jwtSecret HS256 secret of the access tokens, at least 32 bytes
     * @param tokenTtl how long an access token is valid
     * @param issuer the {@code iss} claim issued and required
     * @param passwordLessLogin whether {@code POST /api/login} issues tokens for any user name without a
     *     password; by default only in demo mode. For test environments only (a warning is logged).
     * @param operators user names whose access tokens carry the scope {@code ops}
     *     ({@link io.onlyonce.example.seckill.auth.AccessTokens#OPERATOR_SCOPE}): they see the
     *     components of {@code /actuator/health}; everyone else sees its status only
     */
    public record Auth(String jwtSecret, @DefaultValue("2h") Duration tokenTtl,
            @DefaultValue("onlyonce-seckill") String issuer, @Nullable Boolean passwordLessLogin,
            @DefaultValue List<String> operators) {

        public Auth {
            requireSecret("seckill.auth.jwt-secret", jwtSecret);
            operators = operators == null ? List.of() : List.copyOf(operators);
        }
    }

    /**
     * The payment platform's notifications.
     *
     * @param secret HMAC-SHA256 secret the platform signs each notification body with, at least 32 bytes
     */
    public record Payment(String secret) {

        public Payment {
            requireSecret("seckill.payment.secret", secret);
        }
    }

    /**
     * The business-id service ({@code GET /api/idempotent/generate}).
     *
     * @param node this instance's node, 0 to 1023, different on every instance that serves ids: the
     *     ids of two instances then never collide. Unset: a random node (logged at start-up), as
     *     with a single instance or for a try-out
     */
    public record Ids(@Nullable Integer node) {

        public Ids {
            if (node != null && (node < 0 || node > 1023)) {
                throw new IllegalArgumentException("seckill.ids.node must be between 0 and 1023, was " + node);
            }
        }
    }

    /**
     * Orders.
     *
     * @param unpaidTimeout how long an order may stay unpaid before the sweeper cancels it
     * @param sweepInterval how often the sweeper runs
     * @param sweeperEnabled whether the scheduled sweeper runs (tests call it by hand)
     * @param sweepBatchSize most orders one sweep cancels
     */
    public record Order(@DefaultValue("15m") Duration unpaidTimeout, @DefaultValue("30s") Duration sweepInterval,
            @DefaultValue("true") boolean sweeperEnabled, @DefaultValue("500") int sweepBatchSize) {
    }

    /**
     * The OnlyOnce layers.
     *
     * @param enabled whether order endpoints carry {@code @Idempotent}; false leaves only the data
     *     layer (the benchmark's baseline; also switch off {@code onlyonce.dedup.enabled})
     */
    public record OnlyOnce(@DefaultValue("true") boolean enabled) {
    }

    /**
     * Demo data.
     *
     * @param enabled whether an empty database gets three products and a running flash sale
     * @param flashSaleStock stock of the demo flash sale, and what it is filled up to again when it
     *     is restocked (in demo mode: at start-up and by {@code POST /api/demo/flash-sale/restock})
     * @param flashSaleLength how long the demo flash sale runs from start-up (and from a restock)
     */
    public record DemoData(@DefaultValue("true") boolean enabled, @DefaultValue("100") int flashSaleStock,
            @DefaultValue("30d") Duration flashSaleLength) {
    }

    /**
     * The demo mode, which the {@code demo} profile turns on (it is the default profile, so a start
     * without any profile is a demo). It allows the published demo secrets, logs a warning at
     * start-up and offers {@code POST /api/demo/flash-sale/restock}. Without it, start-up fails
     * unless {@code SECKILL_JWT_SECRET}, {@code SECKILL_PAYMENT_SECRET} and
     * {@code ONLYONCE_TOKEN_SECRET} are set to secrets of at least 32 bytes.
     *
     * @param enabled whether this instance is a demo
     */
    public record Demo(@DefaultValue("false") boolean enabled) {
    }

    /**
     * Per-user abuse limits. Rates are counted in the OnlyOnce window
     * store, so they hold across instances on Redis or a database; the caps are counted in the
     * orders table under a lock on the buyer's row.
     *
     * @param enabled whether the limits apply (false: none of them, and tokens are issued for a
     *     sold-out sale too)
     * @param window the window the request rates are counted in
     * @param tokenRequests one-time token requests one user may make per window (429 beyond); 0 for no limit
     * @param orderRequests order requests (both order endpoints together) one user may make per
     *     window (429 beyond); 0 for no limit
     * @param idRequests business ids one user may ask {@code GET /api/idempotent/generate} for per
     *     window (429 beyond); 0 for no limit
     * @param maxUnpaidOrders unpaid orders one user may hold at once (409 beyond); 0 for no limit
     * @param maxUnitsPerActivity units one user may hold in live (unpaid or paid) orders of one flash
     *     sale, all its products together (409 beyond); 0 for no limit
     * @param maxUnitsPerProduct units of one product one user may hold in live regular orders (409
     *     beyond); 0 for no limit
     */
    public record Limits(@DefaultValue("true") boolean enabled, @DefaultValue("10s") Duration window,
            @DefaultValue("5") int tokenRequests, @DefaultValue("10") int orderRequests, @DefaultValue("30") int idRequests,
            @DefaultValue("3") int maxUnpaidOrders, @DefaultValue("1") int maxUnitsPerActivity,
            @DefaultValue("20") int maxUnitsPerProduct) {

        public Limits {
            if (window.isNegative() || window.isZero()) {
                throw new IllegalArgumentException("seckill.limits.window must be positive");
            }
            if (tokenRequests < 0 || orderRequests < 0 || idRequests < 0 || maxUnpaidOrders < 0 || maxUnitsPerActivity < 0
                    || maxUnitsPerProduct < 0) {
                throw new IllegalArgumentException("seckill.limits.* must not be negative");
            }
        }
    }

    /**
     * The flash-sale fast path (stock pre-deducted in Redis, the queue shaves the peak,
     * compensation to eventual consistency). A purchase is decided in Redis in one script and
     * answered {@code 202} with a reservation; consumers write the orders in batches.
     *
     * @param enabled whether flash-sale purchases take the fast path (on with the {@code redis}
     *     profile; off on the embedded default, which places each order synchronously)
     * @param keyPrefix prefix of the fast path's Redis keys
     * @param batchSize most reservations one consumer writes in one database transaction
     * @param pollInterval how long a consumer waits before it looks again at an empty queue
     * @param claimIdle how long a reservation may stay delivered to a consumer without being
     *     acknowledged before another consumer takes it over (a consumer that died)
     * @param reconcileInterval how often the reconciler compares Redis with the database
     * @param consumers consumer threads per running flash sale in this instance; 0 for an instance
     *     that only decides purchases while other instances write the orders (a web tier and a
     *     worker tier of one service)
     */
    public record FastPath(@DefaultValue("false") boolean enabled, @DefaultValue("seckill:fast:") String keyPrefix,
            @DefaultValue("500") int batchSize, @DefaultValue("50ms") Duration pollInterval,
            @DefaultValue("30s") Duration claimIdle, @DefaultValue("5s") Duration reconcileInterval,
            @DefaultValue("1") int consumers) {

        public FastPath {
            if (batchSize < 1) {
                throw new IllegalArgumentException("seckill.fast-path.batch-size must be positive");
            }
            if (consumers < 0) {
                throw new IllegalArgumentException("seckill.fast-path.consumers must be 0 or more");
            }
            if (pollInterval.isNegative() || pollInterval.isZero() || claimIdle.isNegative() || claimIdle.isZero()
                    || reconcileInterval.isNegative() || reconcileInterval.isZero()) {
                throw new IllegalArgumentException("seckill.fast-path intervals must be positive");
            }
        }
    }

    static void requireSecret(String name, String secret) {
        if (secret == null || secret.getBytes(StandardCharsets.UTF_8).length < 32) {
            throw new IllegalArgumentException(name + " must be at least 32 bytes");
        }
    }
}
