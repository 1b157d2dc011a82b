package io.onlyonce.example.seckill.ids;

import com.github.f4b6a3.tsid.Tsid;
import com.github.f4b6a3.tsid.TsidFactory;
import io.onlyonce.example.seckill.order.BusinessIds;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Map;
import java.util.Optional;

/**
 * Business ids made on the server, for clients that would rather not make their own: the same form
 * the order endpoint checks ({@code u{userId}_{epochMillis}_{6 letters or digits}}), with the
 * suffix carrying the scope and the TSID's node and counter:
 *
 * <pre>
 *   u42_1767225600000_oA3x9Q
 *    |        |        |└──── node (10 bits) and counter (12 bits) of a TSID, base 62, 5 characters
 *    |        |        └───── the scope ({@code o}: order)
 *    |        └────────────── the TSID's time: epoch milliseconds, UTC, whatever the time zone
 *    └─────────────────────── the caller
 * </pre>
 *
 * Two ids are equal only if their TSIDs are (same millisecond, node and counter): one generator
 * never makes a TSID twice (a counter within the millisecond, the next millisecond once it is used
 * up), and instances with different nodes never make the same one. Time-ordered per user.
 * Ids made by a client itself (the fallback when it cannot reach this service) have a random
 * suffix of the same form; the database's unique business id is the last line for both.
 */
public final class BusinessIdGenerator {

    /** The scopes ids are made for, each with its suffix letter. */
    public static final Map<String, Character> SCOPES = Map.of("order", 'o');

    private static final String BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    private static final int NODE_AND_COUNTER_BITS = 22;

    private final TsidFactory tsids;
    private final int node;

    /**
     * @param node this instance's node, 0 to 1023, or empty for a random one
     * @param clock the clock whose milliseconds the ids carry
     */
    public BusinessIdGenerator(Optional<Integer> node, Clock clock) {
        this.node = node.orElseGet(() -> new SecureRandom().nextInt(1024));
        this.tsids = TsidFactory.builder().withNodeBits(10).withNode(this.node).withClock(clock).build();
    }

    /** The node this generator's ids carry. */
    public int node() {
        return node;
    }

    /**
     * A new business id.
     *
     * @param userId the caller
     * @param scope one of {@link #SCOPES}
     * @throws IllegalArgumentException for another scope
     */
    public Issued next(long userId, String scope) {
        Character letter = SCOPES.get(scope);
        if (letter == null) {
            throw new IllegalArgumentException("unknown scope");
        }
        Tsid tsid = tsids.create();
        long millis = tsid.getUnixMilliseconds();
        long low = tsid.toLong() & ((1L << NODE_AND_COUNTER_BITS) - 1);
        char[] suffix = new char[6];
        suffix[0] = letter;
        for (int i = 5; i >= 1; i--) {
            suffix[i] = BASE62.charAt((int) (low % 62));
            low /= 62;
        }
        String id = "u" + userId + "_" + millis + "_" + new String(suffix);
        if (BusinessIds.parse(id).isEmpty()) {
            throw new IllegalStateException("made a business id the order endpoint would refuse");
        }
        return new Issued(id, scope, userId, Instant.ofEpochMilli(millis));
    }

    /**
     * One business id and what it carries.
     *
     * @param businessId the id, for {@code Idempotency-Key}
     * @param scope what it is for
     * @param userId whose it is
     * @param issuedAt its milliseconds as an instant (UTC)
     */
    public record Issued(String businessId, String scope, long userId, Instant issuedAt) {

        /** "2026-12-01T08:00:00.123Z (2026-12-01T16:00:00.123+08:00[Asia/Shanghai])": UTC and the local time, for logs. */
        public String times(ZoneId local) {
            return issuedAt + " (" + issuedAt.atZone(local) + ")";
        }
    }
}
