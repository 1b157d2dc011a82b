package io.onlyonce.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.StoreUnavailableException;
import io.onlyonce.testing.Race;
import java.util.ArrayList;
import java.util.List;

/**
 * The outcomes of many threads calling a store at once, round after round: every call's result, and
 * every {@link StoreUnavailableException}, kept instead of ending the thread, so that a test can say
 * how many of all the calls failed.
 *
 * @param results the results of the calls that returned
 * @param failures the calls that failed
 */
record Calls<T>(List<T> results, List<StoreUnavailableException> failures) {

    /** One call of one round. */
    @FunctionalInterface
    interface Call<T> {
        T make(int round);
    }

    /** Releases {@code threads} threads at once, each making the calls of rounds 0 to {@code rounds - 1} in turn. */
    static <T> Calls<T> race(int threads, int rounds, Call<T> call) throws Exception {
        List<T> results = new ArrayList<>();
        List<StoreUnavailableException> failures = new ArrayList<>();
        for (Calls<T> thread : Race.run(threads, () -> inTurn(rounds, call))) {
            results.addAll(thread.results());
            failures.addAll(thread.failures());
        }
        return new Calls<>(results, failures);
    }

    private static <T> Calls<T> inTurn(int rounds, Call<T> call) {
        List<T> results = new ArrayList<>();
        List<StoreUnavailableException> failures = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            try {
                results.add(call.make(round));
            } catch (StoreUnavailableException e) {
                failures.add(e);
            }
        }
        return new Calls<>(results, failures);
    }

    /**
     * The results, once it is asserted that no call failed; otherwise the assertion says how many of
     * all the calls failed, and why the first did.
     */
    List<T> allSucceeded() {
        Throwable first = failures.isEmpty() ? null : failures.get(0).getCause();
        assertThat(failures.size()).as("calls failed with StoreUnavailableException, of %d; the first because of %s",
                results.size() + failures.size(), first).isZero();
        return results;
    }
}
