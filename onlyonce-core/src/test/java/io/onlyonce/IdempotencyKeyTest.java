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

    @Test
    void scopesWithUnpairedSurrogatesAreRefusedSoTheyCannotAliasAQuestionMark() {
        assertThatThrownBy(() -> new IdempotencyKey("alice\uD800 POST /orders", "k"))
                .isInstanceOf(InvalidIdempotencyKeyException.class);
        assertThatThrownBy(() -> new IdempotencyKey("\uDC00alice", "k")).isInstanceOf(InvalidIdempotencyKeyException.class);
        assertThat(new IdempotencyKey("alice? POST /orders", "k").scope()).isEqualTo("alice? POST /orders");
        assertThat(new IdempotencyKey("emoji \uD83D\uDE00", "k").scope()).endsWith("\uD83D\uDE00");
    }

    @Test
    void derivedNamesKeepValidKeysAndHashEverythingElse() {
        assertThat(IdempotencyKey.derivedName("u42_1732950000000_Ab3dE9")).isEqualTo("u42_1732950000000_Ab3dE9");
        String longValue = "order-" + "9".repeat(300);
        String hashed = IdempotencyKey.derivedName(longValue);
        assertThat(hashed).startsWith("sha256:").hasSize(50);
        assertThat(IdempotencyKey.isValidName(hashed)).isTrue();
        assertThat(IdempotencyKey.derivedName(longValue)).as("stable").isEqualTo(hashed);
        assertThat(IdempotencyKey.derivedName("订单 42")).startsWith("sha256:").isNotEqualTo(IdempotencyKey.derivedName("订单 43"));
        assertThat(IdempotencyKey.derivedName("has space")).startsWith("sha256:");
        assertThat(IdempotencyKey.derivedName(hashed)).as("a value that looks like a hash is hashed again").isNotEqualTo(hashed);
        assertThatThrownBy(() -> IdempotencyKey.derivedName("")).isInstanceOf(InvalidIdempotencyKeyException.class);
        assertThatThrownBy(() -> IdempotencyKey.derivedName("x\uD800")).isInstanceOf(InvalidIdempotencyKeyException.class);
    }
}
