package io.onlyonce.support;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ReleaseLineTest {

    @Test
    void readsMajorAndMinorOfReleasesAndSnapshots() {
        assertThat(ReleaseLine.of("3.5.7")).contains(new ReleaseLine(3, 5));
        assertThat(ReleaseLine.of("4.2.0-SNAPSHOT")).contains(new ReleaseLine(4, 2));
        assertThat(ReleaseLine.of("5")).contains(new ReleaseLine(5, 0));
        assertThat(ReleaseLine.of("2025.0.0")).contains(new ReleaseLine(2025, 0));
    }

    @Test
    void aMissingOrNonNumericVersionHasNoLine() {
        assertThat(ReleaseLine.of(null)).isEmpty();
        assertThat(ReleaseLine.of(" ")).isEmpty();
        assertThat(ReleaseLine.of("custom")).isEmpty();
        assertThat(ReleaseLine.of("4.x")).isEmpty();
    }

    @Test
    void comparesMajorThenMinor() {
        assertThat(new ReleaseLine(3, 4).isBefore(3, 5)).isTrue();
        assertThat(new ReleaseLine(2, 9).isBefore(3, 5)).isTrue();
        assertThat(new ReleaseLine(3, 5).isBefore(3, 5)).isFalse();
        assertThat(new ReleaseLine(4, 0).isBefore(3, 5)).isFalse();
    }
}
