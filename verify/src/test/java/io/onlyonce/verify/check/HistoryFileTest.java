package io.onlyonce.verify.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.verify.history.History;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Checks histories read from JSON Lines files, so the file format is what the checkers see. */
class HistoryFileTest {

    private static History read(String name) throws URISyntaxException {
        return History.read(Path.of(HistoryFileTest.class.getResource("/histories/" + name).toURI()));
    }

    @Test
    void theCleanRunReadFromItsFileIsTheCleanRunAndPasses() throws Exception {
        History history = read("clean.jsonl");
        assertThat(history.ops()).hasSize(38);
        assertThat(history.finalRead()).isPresent();
        assertThat(Checks.run(history)).allSatisfy(r -> assertThat(r.valid()).as(r.check() + " " + r.anomalies()).isTrue());
        assertThat(Checks.run(history)).extracting(CheckResult::counts)
                .containsExactlyElementsOf(Checks.run(Clean.history()).stream().map(CheckResult::counts).toList());
    }

    @Test
    void anOrderExecutedAgainAfterAKillAfterCommitIsADuplicate() throws Exception {
        History history = read("lost-answer-executed-twice.jsonl");
        List<CheckResult> results = Checks.run(history);
        // the first attempt's answer was lost when the instance was killed after its commit (3); the retry (6)
        // was executed again as new; the final read (7) holds both orders (amounts 3.10 and 3.1 are one amount)
        assertThat(results).filteredOn(r -> !r.valid()).singleElement().satisfies(r -> Expect.exactly(r,
                Expect.anomaly("at-most-once", "duplicate-effect", "k1", 3, 6, 7)));
        assertThat(results.get(4).counts()).containsEntry("convergedAfterUnknown", 1L);
    }
}
