package io.onlyonce.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.StoreUnavailableException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class StoreBudgetTest {

    private final AtomicLong now = new AtomicLong();

    private String takes(long millis) {
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
        return "answered";
    }

    @Test
    void theCallsOfOneScopeShareItsBudgetAndTheNextCallFailsAtOnceWhenItIsSpent() {
        try (StoreBudget.Scope scope = StoreBudget.open(Duration.ofSeconds(2), now::get)) {
            assertThat(StoreBudget.call("hit", () -> takes(1_500))).isEqualTo("answered");
            assertThat(StoreBudget.remaining()).isEqualTo(Duration.ofMillis(500));
            // the store itself bounds a call by its deadline; here it overran
            assertThat(StoreBudget.call("consume", () -> takes(600))).isEqualTo("answered");
            assertThat(StoreBudget.remaining()).isZero();
            assertThatThrownBy(() -> StoreBudget.call("claim", () -> takes(1)))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessage("store unavailable during claim (request budget spent)");
            assertThatThrownBy(() -> StoreBudget.deadline("claim", TimeUnit.SECONDS.toNanos(2)))
                    .isInstanceOf(StoreUnavailableException.class);
        }
        assertThat(StoreBudget.remaining()).as("closed").isNull();
    }

    @Test
    void aCallGetsWhatIsLeftOrItsOwnTimeoutWhicheverIsShorter() {
        try (StoreBudget.Scope scope = StoreBudget.open(Duration.ofSeconds(2), now::get)) {
            StoreBudget.call("hit", () -> takes(1_800));
            long left = StoreBudget.deadline("claim", TimeUnit.SECONDS.toNanos(2)) - System.nanoTime();
            assertThat(left).isBetween(0L, TimeUnit.MILLISECONDS.toNanos(200));
            long own = StoreBudget.deadline("claim", TimeUnit.MILLISECONDS.toNanos(50)) - System.nanoTime();
            assertThat(own).isLessThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    @Test
    void aCallInsideAnotherIsCountedOnceAndWorkOutsideCallsNotAtAll() {
        try (StoreBudget.Scope scope = StoreBudget.open(Duration.ofSeconds(2), now::get)) {
            StoreBudget.call("wrapper", () -> StoreBudget.call("store", () -> takes(500)));
            takes(10_000); // the business method: not a store call
            assertThat(StoreBudget.remaining()).isEqualTo(Duration.ofMillis(1_500));
        }
    }

    @Test
    void aCallOutsideTheBudgetKeepsItsOwnTimeoutAndTakesNothingOff() {
        try (StoreBudget.Scope scope = StoreBudget.open(Duration.ofSeconds(1), now::get)) {
            StoreBudget.call("claim", () -> takes(1_000));
            assertThat(StoreBudget.outside(() -> StoreBudget.call("complete", () -> takes(300)))).isEqualTo("answered");
            assertThat(StoreBudget.remaining()).isZero();
        }
    }

    @Test
    void withoutAnOpenBudgetEveryCallHasItsOwnTimeoutOnly() {
        assertThat(StoreBudget.remaining()).isNull();
        assertThat(StoreBudget.call("claim", () -> takes(5_000))).isEqualTo("answered");
        long deadline = StoreBudget.deadline("claim", TimeUnit.SECONDS.toNanos(2)) - System.nanoTime();
        assertThat(deadline).isGreaterThan(TimeUnit.SECONDS.toNanos(1));
    }

    @Test
    void anInnerScopeReplacesTheOuterOneUntilItCloses() {
        try (StoreBudget.Scope outer = StoreBudget.open(Duration.ofSeconds(2), now::get)) {
            try (StoreBudget.Scope inner = StoreBudget.open(Duration.ofSeconds(1), now::get)) {
                assertThat(StoreBudget.remaining()).isEqualTo(Duration.ofSeconds(1));
            }
            assertThat(StoreBudget.remaining()).isEqualTo(Duration.ofSeconds(2));
        }
        assertThatThrownBy(() -> StoreBudget.open(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }
}
