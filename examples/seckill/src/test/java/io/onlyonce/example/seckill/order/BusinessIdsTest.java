package io.onlyonce.example.seckill.order;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BusinessIdsTest {

    @Test
    void aValidIdNamesItsUserAndTime() {
        assertThat(BusinessIds.parse("u42_1767225600000_a1B2c3"))
                .contains(new BusinessIds.Parsed(42, 1_767_225_600_000L));
    }

    @Test
    void theLongestValidIdFitsTheColumn() {
        String longest = "u" + Long.MAX_VALUE + "_9999999999999_ZZZZZZ";
        assertThat(BusinessIds.parse(longest)).isPresent();
        assertThat(longest.length()).isLessThanOrEqualTo(64);
        assertThat(BusinessIds.forToken("t".repeat(98))).hasSize(46);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "u42", "42_1767225600000_a1B2c3", "u42_1767225600000_a1B2c", "u42_1767225600000_a1B2c3d",
        "u42_176722560000_a1B2c3", "u42_1767225600000_a1B2c!", "u-1_1767225600000_a1B2c3", "u99999999999999999999_1767225600000_a1B2c3",
        "U42_1767225600000_a1B2c3", "u42_1767225600000_a1B2c3\n", "u042_1767225600000_a1B2c3", "u0001_1767225600000_a1B2c3",
        "u0_1767225600000_a1B2c3", "u+42_1767225600000_a1B2c3", "u\uFF14\uFF12_1767225600000_a1B2c3"})
    void anythingElseIsNoBusinessId(String value) {
        assertThat(BusinessIds.parse(value)).isEmpty();
    }

    @Test
    void tokensMakeStableDistinctIds() {
        assertThat(BusinessIds.forToken("a")).isEqualTo(BusinessIds.forToken("a")).isNotEqualTo(BusinessIds.forToken("b"));
    }
}
