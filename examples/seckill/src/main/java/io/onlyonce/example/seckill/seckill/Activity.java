package io.onlyonce.example.seckill.seckill;

import java.time.Instant;

/**
 * A flash sale.
 *
 * @param id the activity id
 * @param name the display name
 * @param startsAt when buying opens
 * @param endsAt when buying closes
 */
public record Activity(long id, String name, Instant startsAt, Instant endsAt) {

    public boolean isRunningAt(Instant now) {
        return !now.isBefore(startsAt) && now.isBefore(endsAt);
    }
}
