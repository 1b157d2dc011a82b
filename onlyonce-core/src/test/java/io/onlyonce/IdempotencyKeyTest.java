package io.onlyonce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IdempotencyKeyTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "8e03978e-40d5-43e8-bc93-6894a57f9324|8e03978e-40d5-43e8-bc93-6894a57f9324",
        "\"8e03978e-40d5-43e8-bc93-6894a57f9324\"|8e03978e-40d5-43e8-bc93-6894a57f9324",
        "'  u42_1732950000000_Ab3dE9  '|u42_1732950000000_Ab3dE9",
        "\"a\\\"b\"|a\"b",
        "\"a\\\\b\"|a\\b",
        "\"quoted\"  |quoted"
    })
    void parsesSfStringsAndBareValues(String header, String expected) {
        assertThat(IdempotencyKey.parseHeaderValue(header)).isEqualTo(expected);
        assertThat(IdempotencyKey.fromHeader("s", header)).isEqualTo(new IdempotencyKey("s", expected));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "", "   ", "\"\"", "\"unterminated", "\"a\"b", "\"a\\nb\"", "\"a b\"", "a b", "\"\\", "ключ", "key\u0007"
    })
    void rejectsMalformedHeaderValues(String header) {
        assertThatThrownBy(() -> IdempotencyKey.parseHeaderValue(header)).isInstanceOf(InvalidIdempotencyKeyException.class);
    }

    @Test
    void rejectsMissingValue() {
        assertThatThrownBy(() -> IdempotencyKey.parseHeaderValue(null))
                .isInstanceOf(InvalidIdempotencyKeyException.class).hasMessage("key is missing");
    }

    @Test
    void lengthLimitCountsTheUnquotedName() {
        String max = "k".repeat(255);
        assertThat(IdempotencyKey.parseHeaderValue("\"" + max + "\"")).isEqualTo(max);
        assertThatThrownBy(() -> IdempotencyKey.parseHeaderValue("\"" + max + "k\""))
                .isInstanceOf(InvalidIdempotencyKeyException.class);
    }

    @Test
    void scopeMayBeAnyScriptButNotControlCharactersOrTooLong() {
        assertThat(new IdempotencyKey("用户:POST /订单", "k").scope()).isEqualTo("用户:POST /订单");
        assertThat(new IdempotencyKey("", "k").scope()).isEmpty();
        assertThatThrownBy(() -> new IdempotencyKey("a\nb", "k")).isInstanceOf(InvalidIdempotencyKeyException.class);
        assertThatThrownBy(() -> new IdempotencyKey("s".repeat(513), "k")).isInstanceOf(InvalidIdempotencyKeyException.class);
    }
}
