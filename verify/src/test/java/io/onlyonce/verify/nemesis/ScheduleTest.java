package io.onlyonce.verify.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ScheduleTest {

    static final Duration LEASE = Duration.ofSeconds(8);

    @Test
    void theSameSeedGivesTheSameSchedule() {
        List<FaultKind> kinds = List.of(FaultKind.values());
        assertThat(Schedule.of(42, kinds, 3, LEASE)).isEqualTo(Schedule.of(42, kinds, 3, LEASE));
        assertThat(Schedule.of(42, kinds, 3, LEASE)).isNotEqualTo(Schedule.of(43, kinds, 3, LEASE));
    }

    @Test
    void everyRoundStrikesEveryKindOnce() {
        List<FaultKind> kinds = List.of(FaultKind.KILL, FaultKind.PAUSE, FaultKind.REDIS_RESTART);
        List<Fault> faults = Schedule.of(7, kinds, 4, LEASE);
        assertThat(faults).hasSize(12);
        for (int round = 0; round < 4; round++) {
            assertThat(faults.subList(round * 3, round * 3 + 3)).extracting(Fault::kind).containsExactlyInAnyOrderElementsOf(kinds);
        }
        Map<FaultKind, Long> perKind = faults.stream().collect(Collectors.groupingBy(Fault::kind, Collectors.counting()));
        assertThat(perKind).containsOnly(Map.entry(FaultKind.KILL, 4L), Map.entry(FaultKind.PAUSE, 4L),
                Map.entry(FaultKind.REDIS_RESTART, 4L));
    }

    @Test
    void aPausedInstanceStaysPausedLongerThanTheLease() {
        assertThat(Schedule.of(3, List.of(FaultKind.PAUSE), 20, LEASE)).allSatisfy(f -> {
            assertThat(f.holdMs()).isGreaterThan(LEASE.toMillis());
            assertThat(f.target()).isIn("seckill-1", "seckill-2");
        });
    }

    @Test
    void tsidsTellTheirNode() {
        // order numbers of a run of this harness: seckill-2 (TSIDCREATOR_NODE=2) wrote the first, seckill-1 the second
        assertThat(Tsids.node("0SDXV5FE40BFW")).isEqualTo(2);
        assertThat(Tsids.node("0SDXVJPVC06H1")).isEqualTo(1);
    }
}
