package io.onlyonce.example.seckill.fastpath;

import com.github.f4b6a3.tsid.TsidCreator;
import io.onlyonce.redis.AtomicCall;
import io.onlyonce.redis.RedisEffect;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The fast path's state in Redis, one group of keys per flash sale (one hash tag, so one Redis
 * Cluster slot): {@code stock} (hash product → units left), {@code buyers} (hash user → their
 * reservation: the one-per-sale mark), {@code queue} (the stream of reservations to write),
 * {@code returned} (set of reservations and orders whose unit came back, so it comes back once),
 * {@code epoch} (which load of the sale this is) and {@code version} (bumped by every change of
 * stock, so the reconciler can tell that nothing moved). Every change is one Lua script.
 */
public class RedisStock {

    /** The consumer group every instance's consumers share. */
    static final String GROUP = "writers";

    private static final RedisScript<List> TAKE = script("take", List.class);
    private static final RedisScript<Long> SETTLE = script("settle", Long.class);
    private static final RedisScript<Long> GIVE_BACK = script("give-back", Long.class);
    private static final RedisScript<Long> REBUILD = script("rebuild", Long.class);
    private static final RedisScript<Long> RECONCILE = script("reconcile", Long.class);
    private static final RedisScript<List> QUEUE = script("queue", List.class);
    private static final RedisScript<List> HOLDING = script("holding", List.class);

    private final StringRedisTemplate redis;
    private final String prefix;

    public RedisStock(StringRedisTemplate redis, String prefix) {
        this.redis = redis;
        this.prefix = prefix;
    }

    /**
     * The script, its text read once: a script made from a resource checks the resource for changes
     * (and re-hashes it) under a lock on every call, which serialises every purchase.
     */
    private static <T> RedisScript<T> script(String name, Class<T> type) {
        return RedisScript.of(source(name), type);
    }

    private static String source(String name) {
        try (InputStream in = new ClassPathResource("fastpath/" + name + ".lua").getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("fastpath/" + name + ".lua is missing from the classpath", e);
        }
    }

    /**
     * One purchase as an effect of {@code RedisAtomicExecutor}: the buyer's mark, the stock, the queue
     * and the stored 202 answer, atomically with the purchase's record, token and window. Its keys and
     * arguments come from {@link #purchase}.
     */
    static final RedisEffect RESERVE = RedisEffect.of("reserve", source("reserve"));

    /** Adds a purchase's keys and arguments to a call of {@link #RESERVE}. */
    AtomicCall.Builder purchase(AtomicCall.Builder call, long activityId, long productId, int quantity, long userId) {
        Keys k = keys(activityId);
        return call.keys(k.epoch(), k.stock(), k.buyers(), k.queue(), k.version())
                .args(Long.toString(productId), Integer.toString(quantity), Long.toString(userId),
                        TsidCreator.getTsid().toString(), Long.toString(activityId));
    }

    /** The next batch for {@code consumer}: reservations left idle by a dead consumer first, then new ones. */
    public List<QueuedReservation> take(long activityId, String consumer, long claimIdleMillis, int count) {
        List<?> flat = redis.execute(TAKE, List.of(keys(activityId).queue()), GROUP, consumer,
                Long.toString(claimIdleMillis), Integer.toString(count));
        List<QueuedReservation> batch = new ArrayList<>(flat.size() / 5);
        for (int i = 0; i + 4 < flat.size(); i += 5) {
            String streamId = String.valueOf(flat.get(i));
            ReservationId id = ReservationId.parse(String.valueOf(flat.get(i + 1))).orElse(null);
            if (id == null) {
                continue; // not ours: acknowledged below with the batch
            }
            batch.add(new QueuedReservation(streamId, id, Long.parseLong(String.valueOf(flat.get(i + 3))),
                    Integer.parseInt(String.valueOf(flat.get(i + 4)))));
        }
        return batch;
    }

    /**
     * Finishes a decided batch: units of failed reservations back (once, same epoch only), their
     * buyers' marks freed, the batch acknowledged and removed from the queue.
     *
     * @return how many units came back
     */
    public long settle(long activityId, List<Decision> decisions) {
        Keys k = keys(activityId);
        List<String> args = new ArrayList<>();
        args.add(GROUP);
        args.add(Integer.toString(decisions.size()));
        decisions.forEach(d -> args.add(d.reservation().streamId()));
        for (Decision d : decisions) {
            if (d.returnsUnit()) {
                ReservationId id = d.reservation().id();
                args.add(id.toString());
                args.add(Long.toString(id.epoch()));
                args.add(Long.toString(id.userId()));
                args.add(Long.toString(d.reservation().productId()));
                args.add(Integer.toString(d.reservation().quantity()));
            }
        }
        return redis.execute(SETTLE, List.of(k.epoch(), k.stock(), k.buyers(), k.queue(), k.version(), k.returned()),
                args.toArray());
    }

    /**
     * A cancelled order's unit back, once.
     *
     * @return 1 if it came back now, 0 if it had already, -1 when Redis does not hold the sale (the
     *     next load takes the stock from the database, which holds the unit)
     */
    public long giveBack(long activityId, String orderNo, long productId, int quantity, long userId, String reservationId) {
        Keys k = keys(activityId);
        return redis.execute(GIVE_BACK, List.of(k.epoch(), k.stock(), k.buyers(), k.version(), k.returned()),
                orderNo, Long.toString(productId), Integer.toString(quantity), Long.toString(userId), reservationId);
    }

    /** The epoch of the sale's current load, or null when Redis does not hold it. */
    public @Nullable Long epoch(long activityId) {
        String epoch = redis.opsForValue().get(keys(activityId).epoch());
        return epoch == null ? null : Long.valueOf(epoch);
    }

    /** The version of the sale's stock (bumped by every change), "0" when never changed. */
    public String version(long activityId) {
        String version = redis.opsForValue().get(keys(activityId).version());
        return version == null ? "0" : version;
    }

    /** Reservations queued or being written. */
    public long queued(long activityId) {
        Long length = redis.opsForStream().size(keys(activityId).queue());
        return length == null ? 0 : length;
    }

    /**
     * The state of a sale's queue, in one read-only script.
     *
     * @param length reservations queued or being written
     * @param pending of those, the ones a consumer has taken and not settled yet
     * @param oldestAgeMillis how long the oldest has been in the queue, on the Redis server's clock; 0 when empty
     */
    public record QueueState(long length, long pending, long oldestAgeMillis) {
    }

    /** The state of the sale's queue. */
    public QueueState queueState(long activityId) {
        List<?> state = redis.execute(QUEUE, List.of(keys(activityId).queue()), GROUP);
        return new QueueState(((Number) state.get(0)).longValue(), ((Number) state.get(1)).longValue(),
                ((Number) state.get(2)).longValue());
    }

    /** Units left per product, as Redis has them. */
    public Map<Object, Object> stock(long activityId) {
        return redis.opsForHash().entries(keys(activityId).stock());
    }

    /**
     * What Redis holds of one buyer in one sale, read in one script so both come from the same server.
     *
     * @param epoch the sale's load, or null when Redis does not hold the sale
     * @param mark the buyer's mark: their reservation id, or "o:{orderNo}" for an order loaded from
     *     the database; null when they have none
     */
    public record Holding(@Nullable Long epoch, @Nullable String mark) {
    }

    /** The sale's epoch and the buyer's mark, at one instant. */
    public Holding holding(long activityId, long userId) {
        Keys k = keys(activityId);
        List<?> held = redis.execute(HOLDING, List.of(k.epoch(), k.buyers()), Long.toString(userId));
        Object epoch = held.isEmpty() ? null : held.get(0);
        Object mark = held.size() < 2 ? null : held.get(1);
        return new Holding(epoch == null ? null : Long.valueOf(epoch.toString()), mark == null ? null : mark.toString());
    }

    /**
     * Loads the sale from a database snapshot under a new epoch, unless Redis holds it already.
     *
     * @return true if this call loaded it
     */
    public boolean rebuild(long activityId, long epoch, SaleSnapshot snapshot) {
        Keys k = keys(activityId);
        List<String> args = new ArrayList<>();
        args.add(Long.toString(epoch));
        args.add(GROUP);
        addStock(args, snapshot);
        args.add(Integer.toString(snapshot.liveBuyers().size()));
        snapshot.liveBuyers().forEach((user, mark) -> {
            args.add(Long.toString(user));
            args.add(mark);
        });
        args.addAll(snapshot.cancelledOrders());
        return redis.execute(REBUILD, List.of(k.epoch(), k.stock(), k.buyers(), k.queue(), k.version(), k.returned()),
                args.toArray()) == 1;
    }

    /**
     * Sets the Redis stock to the snapshot's if nothing moved since {@code epoch} and {@code version}
     * were read (taken before the snapshot) and nothing is queued.
     *
     * @return units corrected, or -1 when something moved
     */
    public long reconcile(long activityId, long epoch, String version, SaleSnapshot snapshot) {
        Keys k = keys(activityId);
        List<String> args = new ArrayList<>();
        args.add(Long.toString(epoch));
        args.add(version);
        addStock(args, snapshot);
        args.addAll(snapshot.cancelledOrders());
        return redis.execute(RECONCILE, List.of(k.epoch(), k.stock(), k.queue(), k.version(), k.returned()),
                args.toArray());
    }

    private static void addStock(List<String> args, SaleSnapshot snapshot) {
        args.add(Integer.toString(snapshot.stock().size()));
        snapshot.stock().forEach((product, units) -> {
            args.add(Long.toString(product));
            args.add(Integer.toString(units));
        });
    }

    Keys keys(long activityId) {
        String base = prefix + "{a" + activityId + "}:";
        return new Keys(base + "epoch", base + "stock", base + "buyers", base + "queue", base + "version", base + "returned");
    }

    /** The keys of one sale. */
    record Keys(String epoch, String stock, String buyers, String queue, String version, String returned) {
    }
}
