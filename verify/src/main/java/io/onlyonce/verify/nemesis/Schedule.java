package io.onlyonce.verify.nemesis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * The fault schedule of a run, a pure function of the seed: rounds in which every requested kind
 * strikes once, each round in its own seeded order, each fault with a seeded target, hold and gap.
 * The nemesis works through it until the run's time is up; the report says how many struck.
 */
public final class Schedule {

    private Schedule() {
    }

    /** {@code rounds} rounds of {@code kinds}; {@code lease} sets how long a paused instance stays paused. */
    public static List<Fault> of(long seed, List<FaultKind> kinds, int rounds, Duration lease) {
        Random random = new Random(seed ^ 0x5DEECE66DL);
        List<Fault> faults = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            List<FaultKind> order = new ArrayList<>(kinds);
            Collections.shuffle(order, random);
            for (FaultKind kind : order) {
                String target = switch (kind) {
                    case KILL, KILL_AFTER_COMMIT -> "seckill-" + (1 + random.nextInt(2));
                    case PAUSE -> "seckill-" + (1 + random.nextInt(2));
                    case CLOCK_SKEW -> "seckill-2";
                    case REDIS_RESTART, REDIS_PAUSE -> "redis";
                    case REDIS_PARTITION -> "redis-network";
                    case POSTGRES_RESTART -> "postgres";
                    case RABBIT_RESTART -> "rabbitmq";
                    case RELAY_REPUBLISH -> "outbox";
                };
                long hold = switch (kind) {
                    case PAUSE -> lease.toMillis() + 3_000 + random.nextInt(2_000);
                    case REDIS_PAUSE -> 2_000 + random.nextInt(3_000);
                    case REDIS_PARTITION -> 3_000 + random.nextInt(4_000);
                    case KILL, KILL_AFTER_COMMIT -> 500 + random.nextInt(2_000);
                    case CLOCK_SKEW -> 10_000 + random.nextInt(5_000);
                    case RABBIT_RESTART, POSTGRES_RESTART -> 500 + random.nextInt(1_500);
                    case REDIS_RESTART, RELAY_REPUBLISH -> 0;
                };
                faults.add(new Fault(kind, target, hold, 2_000 + random.nextInt(3_000)));
            }
        }
        return faults;
    }
}
