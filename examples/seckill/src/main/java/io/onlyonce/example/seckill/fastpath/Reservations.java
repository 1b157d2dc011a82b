package io.onlyonce.example.seckill.fastpath;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.onlyonce.StoredResponse;
import io.onlyonce.example.seckill.SeckillProperties;
import io.onlyonce.example.seckill.auth.CurrentUser;
import io.onlyonce.example.seckill.seckill.Activity;
import io.onlyonce.example.seckill.seckill.ActivityRepository;
import io.onlyonce.example.seckill.seckill.SeckillStock;
import io.onlyonce.example.seckill.web.ApiException;
import io.onlyonce.example.seckill.web.AppProblem;
import io.onlyonce.redis.AtomicOutcome;
import io.onlyonce.spring.atomic.AtomicIdempotency;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

/**
 * Flash-sale purchases on the fast path: decided in Redis, answered {@code 202} with a reservation,
 * written to the database by the queue's consumers. The sale and its products are read from the
 * database at most once a second per instance, so a purchase costs no database round trip.
 */
public class Reservations {

    /** The layer of the stats endpoint's counts: purchases decided in Redis ({@code repeated} is a duplicate stopped). */
    public static final String LAYER = "fastpath";
    static final String ENDPOINT = "POST /api/seckill/activities/{activityId}/orders";

    /** A reservation as its owner sees it. */
    public enum Status { QUEUED, ORDERED, FAILED }

    /**
     * {@code GET /api/seckill/reservations/{id}} and the body of a {@code 202}.
     *
     * @param reservationId the reservation
     * @param status where it stands
     * @param orderNo its order, once ORDERED
     * @param reason why it failed, once FAILED ({@code sold-out}, {@code live-order-exists}, {@code reservation-lost})
     */
    public record ReservationView(String reservationId, Status status, @Nullable String orderNo, @Nullable String reason) {
    }

    private record Sale(Optional<Activity> activity, List<SeckillStock> stock) {
    }

    private final RedisStock stock;
    private final StockReconciler reconciler;
    private final ReservationRepository repository;
    private final SeckillProperties.Limits limits;
    private final Clock clock;
    private final LoadingCache<Long, Sale> sales;
    private final MeterRegistry registry;
    /** outcome → its counter, looked up in the registry once */
    private final Map<String, Counter> purchases = new ConcurrentHashMap<>();
    private final OnlyOnceStatistics statistics;

    public Reservations(RedisStock stock, StockReconciler reconciler, ReservationRepository repository,
            ActivityRepository activities, SeckillProperties properties, Clock clock, MeterRegistry registry,
            OnlyOnceStatistics statistics) {
        this.statistics = statistics;
        this.stock = stock;
        this.reconciler = reconciler;
        this.repository = repository;
        this.limits = properties.limits();
        this.clock = clock;
        this.registry = registry;
        this.sales = Caffeine.newBuilder().maximumSize(1_000).refreshAfterWrite(Duration.ofSeconds(1))
                .expireAfterWrite(Duration.ofSeconds(30))
                .build(id -> new Sale(activities.find(id), activities.stock(id)));
    }

    /**
     * One purchase in one Redis script call ({@link AtomicIdempotency}, bound by the handler's
     * {@code @Idempotent}): the request window (deferred to it by the de-dup filter), the one-time
     * token, the purchase's record, the buyer's mark, the stock, the queue and the stored 202 answer.
     * Answers the 202 to send (a new reservation, or the buyer's reservation still queued); throws 409
     * {@code sold-out}, {@code live-order-exists}, {@code activity-not-active}, 404 for an unknown sale
     * or product, and the refusals of the layers the script checked (429 {@code duplicate-request},
     * 409 {@code duplicate-submission} with the first answer, 400 {@code idempotency-token-expired},
     * 503 {@code idempotency-store-unavailable} when Redis cannot decide within its budget or the
     * store's circuit is open: nothing is taken then). A declined purchase leaves the token alive.
     */
    public StoredResponse purchase(CurrentUser user, long activityId, @Nullable Long productId, int quantity,
            AtomicIdempotency atomic) {
        Sale sale = sales.get(activityId);
        Activity activity = sale.activity().orElseThrow(() -> new ApiException(AppProblem.ACTIVITY_NOT_FOUND));
        if (!activity.isRunningAt(clock.instant())) {
            throw new ApiException(AppProblem.ACTIVITY_NOT_ACTIVE);
        }
        if (limits.enabled() && limits.maxUnitsPerActivity() > 0 && quantity > limits.maxUnitsPerActivity()) {
            throw new ApiException(AppProblem.PURCHASE_LIMIT);
        }
        long product = productId != null ? productId : sale.stock().stream().findFirst()
                .map(SeckillStock::productId).orElseThrow(() -> new ApiException(AppProblem.PRODUCT_NOT_FOUND));
        AtomicOutcome outcome = run(atomic, activityId, product, quantity, user);
        if (outcome instanceof AtomicOutcome.Declined declined && "NOT_LOADED".equals(declined.text(0))) {
            load(activityId);
            outcome = run(atomic, activityId, product, quantity, user);
        }
        if (outcome instanceof AtomicOutcome.Completed completed) {
            count("reserved");
            return completed.response();
        }
        return declined(user, (AtomicOutcome.Declined) outcome);
    }

    private AtomicOutcome run(AtomicIdempotency atomic, long activityId, long product, int quantity, CurrentUser user) {
        // Redis that cannot decide is OnlyOnce's 503, counted in its layer as every store failure
        return atomic.run(RedisStock.RESERVE, call -> stock.purchase(call.consumeTokenOnDecline(false), activityId,
                product, quantity, user.id()));
    }

    /** What a declined purchase answers: the buyer's reservation, or a refusal. */
    private StoredResponse declined(CurrentUser user, AtomicOutcome.Declined declined) {
        String verdict = String.valueOf(declined.text(0));
        switch (verdict) {
            case "DUPLICATE" -> {
                count("repeated");
                String mark = String.valueOf(declined.text(1));
                if (mark.startsWith("o:")) {
                    throw ApiException.aboutOrder(AppProblem.LIVE_ORDER_EXISTS, mark.substring(2));
                }
                // the buyer's reservation: still queued (202 again, the same one), or already their order (409, as the synchronous path answers)
                ReservationView existing = status(user, mark);
                if (existing.orderNo() != null) {
                    throw ApiException.aboutOrder(AppProblem.LIVE_ORDER_EXISTS, existing.orderNo());
                }
                if (existing.status() != Status.QUEUED) {
                    throw new ApiException(AppProblem.SOLD_OUT);
                }
                return queued(existing.reservationId());
            }
            case "SOLD_OUT" -> {
                count("sold-out");
                throw new ApiException(AppProblem.SOLD_OUT);
            }
            case "NO_PRODUCT" -> {
                count("no-product");
                throw new ApiException(AppProblem.PRODUCT_NOT_FOUND);
            }
            default -> {
                count("not-loaded");
                throw new ApiException(AppProblem.SALE_UNAVAILABLE);
            }
        }
    }

    /**
     * The 202 of a queued reservation, byte for byte as {@code reserve.lua} stores it.
     */
    static StoredResponse queued(String reservationId) {
        byte[] body = ("{\"reservationId\":\"" + reservationId + "\",\"status\":\"QUEUED\",\"orderNo\":null,\"reason\":null}")
                .getBytes(StandardCharsets.UTF_8);
        return new StoredResponse(202, List.of(new StoredResponse.Header("Content-Type", "application/json"),
                new StoredResponse.Header("Location", "/api/seckill/reservations/" + reservationId)), body);
    }

    private void load(long activityId) {
        try {
            reconciler.ensureLoaded(activityId);
        } catch (DataAccessException | IllegalStateException e) {
            throw new ApiException(AppProblem.SALE_UNAVAILABLE);
        }
    }

    private void count(String outcome) {
        purchases.computeIfAbsent(outcome, o -> registry.counter("seckill.fastpath.purchases", "outcome", o)).increment();
        statistics.record(LAYER, outcome.replace('-', '_'), ENDPOINT);
    }

    /**
     * Where the caller's reservation stands. A reservation of an earlier Redis load that no consumer
     * wrote was lost with that Redis: it is recorded FAILED ({@code reservation-lost}) here, once, so
     * a consumer still holding it cannot write it later, and the answer never changes again. The
     * sale's epoch and the buyer's mark are read together ({@link RedisStock#holding}): read apart,
     * a Redis that died in between would answer the one and its empty successor the other.
     */
    public ReservationView status(CurrentUser user, String reservationId) {
        ReservationId id = ReservationId.parse(reservationId).filter(r -> r.userId() == user.id())
                .orElseThrow(() -> new ApiException(AppProblem.RESERVATION_NOT_FOUND));
        Optional<ReservationRepository.Row> row = repository.find(reservationId);
        if (row.isPresent()) {
            return view(row.get());
        }
        RedisStock.Holding held = stock.holding(id.activityId(), user.id());
        if (held.epoch() == null) {
            reconciler.ensureLoaded(id.activityId());
            held = stock.holding(id.activityId(), user.id());
            if (held.epoch() == null) {
                throw new ApiException(AppProblem.SALE_UNAVAILABLE); // Redis lost it again: the client asks again
            }
        }
        long epoch = held.epoch();
        if (epoch == id.epoch()) {
            if (reservationId.equals(held.mark())) {
                return new ReservationView(reservationId, Status.QUEUED, null, null);
            }
            // decided while we looked (its row is committed before its mark is freed), or never made here
            return repository.find(reservationId).map(this::view)
                    .orElseThrow(() -> new ApiException(AppProblem.RESERVATION_NOT_FOUND));
        }
        if (id.epoch() > epoch) {
            throw new ApiException(AppProblem.RESERVATION_NOT_FOUND);
        }
        repository.insertDecision(id, 0, 0, Decision.LOST, clock.millis());
        return view(repository.find(reservationId).orElseThrow());
    }

    private ReservationView view(ReservationRepository.Row row) {
        return row.orderNo() != null
                ? new ReservationView(row.reservationId(), Status.ORDERED, row.orderNo(), null)
                : new ReservationView(row.reservationId(), Status.FAILED, null, row.reason());
    }
}
