package io.onlyonce.example.seckill.fastpath;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A reservation of the fast path: {@code {activityId}-{epoch}-{userId}-{suffix}}. The epoch is the
 * Redis load the reservation was made in: a reservation of an earlier epoch that the database never
 * decided was lost with Redis. The buyer is part of the id, so its owner is known even then.
 *
 * @param activityId the flash sale
 * @param epoch the Redis load it was made in
 * @param userId the buyer
 * @param suffix a time-ordered unique suffix (TSID)
 */
public record ReservationId(long activityId, long epoch, long userId, String suffix) {

    private static final Pattern FORM = Pattern.compile("([1-9][0-9]{0,17})-([1-9][0-9]{0,17})-([1-9][0-9]{0,17})-([0-9A-Z]{13})");

    /** The business id of the order a reservation becomes: unique, so it is written once. */
    public String businessId() {
        return "rsv_" + this;
    }

    /** The reservation {@code text} names, or empty when it is not one (a client's typo, a probe). */
    public static Optional<ReservationId> parse(String text) {
        Matcher m = FORM.matcher(text);
        if (text.length() > 64 || !m.matches()) {
            return Optional.empty();
        }
        return Optional.of(new ReservationId(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)),
                Long.parseLong(m.group(3)), m.group(4)));
    }

    @Override
    public String toString() {
        return activityId + "-" + epoch + "-" + userId + "-" + suffix;
    }
}
