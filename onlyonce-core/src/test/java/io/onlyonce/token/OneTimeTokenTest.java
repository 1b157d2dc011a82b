package io.onlyonce.token;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class OneTimeTokenTest {

    private static final Instant EXPIRY = Instant.parse("2026-11-30T00:10:00Z");

    @Test
    void acceptsOnlyCanonicalIdsSoTwoTextsNeverNameOneToken() {
        assertThat(new OneTimeToken("A".repeat(22), EXPIRY).id()).hasSize(22);
        assertThat(new OneTimeToken("_".repeat(21) + "w", EXPIRY).id()).endsWith("w");
        // "...B" decodes to the same 16 bytes as "...A": the spare low bits must be zero
        assertThatThrownBy(() -> new OneTimeToken("A".repeat(21) + "B", EXPIRY)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rejectsWrongLengthAlphabetAndMissingExpiry() {
        assertThatThrownBy(() -> new OneTimeToken("A".repeat(21), EXPIRY)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new OneTimeToken("+".repeat(21) + "A", EXPIRY)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new OneTimeToken("A".repeat(22), null)).isInstanceOf(IllegalArgumentException.class);
    }
}
