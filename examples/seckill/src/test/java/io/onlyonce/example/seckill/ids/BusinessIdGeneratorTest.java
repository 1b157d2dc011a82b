package io.onlyonce.example.seckill.ids;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.onlyonce.example.seckill.order.BusinessIds;
import io.onlyonce.testing.MutableClock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class BusinessIdGeneratorTest {

    private final MutableClock clock = MutableClock.at(Instant.parse("2026-12-01T08:00:00Z"));

    @Test
    void idsHaveTheOrderEndpointsFormCarryTheClocksMillisecondsAndRiseOneAfterTheOther() {
        BusinessIdGenerator ids = new BusinessIdGenerator(Optional.of(7), clock);
        BusinessIdGenerator.Issued first = ids.next(42, "order");
        assertThat(first.businessId()).matches("u42_1796112000000_o[0-9A-Za-z]{5}");
        assertThat(first.issuedAt()).isEqualTo(clock.instant());
        assertThat(BusinessIds.parse(first.businessId())).hasValueSatisfying(p -> {
            assertThat(p.userId()).isEqualTo(42);
            assertThat(p.epochMillis()).isEqualTo(clock.millis());
        });
        List<String> made = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            made.add(ids.next(42, "order").businessId());
        }
        // the clock stands still: 10,000 ids in "one" millisecond use up the 4,096 counter values and
        // move on to the next milliseconds, never repeating one
        assertThat(made).doesNotHaveDuplicates().isSorted();
        assertThat(made.get(0)).isGreaterThan(first.businessId());
        assertThat(first.times(java.time.ZoneId.of("Asia/Shanghai")))
                .isEqualTo("2026-12-01T08:00:00Z (2026-12-01T16:00+08:00[Asia/Shanghai])");
    }

    @Test
    void twoInstancesWithTheirOwnNodesNeverMakeTheSameIdEvenInTheSameMillisecond() {
        BusinessIdGenerator a = new BusinessIdGenerator(Optional.of(1), clock);
        BusinessIdGenerator b = new BusinessIdGenerator(Optional.of(2), clock);
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 20_000; i++) {
            assertThat(seen.add(a.next(42, "order").businessId())).isTrue();
            assertThat(seen.add(b.next(42, "order").businessId())).isTrue();
        }
        assertThat(seen).hasSize(40_000);
    }

    @Test
    void manyThreadsOfOneInstanceGetDistinctIds() throws Exception {
        BusinessIdGenerator ids = new BusinessIdGenerator(Optional.empty(), java.time.Clock.systemUTC());
        assertThat(ids.node()).isBetween(0, 1023);
        Set<String> seen = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                runs.add(pool.submit(() -> {
                    for (int i = 0; i < 5_000; i++) {
                        seen.add(ids.next(9, "order").businessId());
                    }
                }));
            }
            for (Future<?> run : runs) {
                run.get();
            }
        } finally {
            pool.shutdown();
        }
        assertThat(seen).hasSize(40_000);
    }

    @Test
    void anUnknownScopeIsRefused() {
        BusinessIdGenerator ids = new BusinessIdGenerator(Optional.of(0), clock);
        assertThatIllegalArgumentException().isThrownBy(() -> ids.next(1, "refund"));
    }
}
