package io.onlyonce.example.seckill.web;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RequestIdFilterTest {

    @Test
    void acceptsUpToSixtyFourVisibleCharacters() {
        assertThat(RequestIdFilter.accepted("abc-123_XYZ:/=")).isEqualTo("abc-123_XYZ:/=");
        assertThat(RequestIdFilter.accepted("x".repeat(64))).hasSize(64);
    }

    @Test
    void refusesEverythingElse() {
        assertThat(RequestIdFilter.accepted(null)).isNull();
        assertThat(RequestIdFilter.accepted("")).isNull();
        assertThat(RequestIdFilter.accepted("x".repeat(65))).isNull();
        assertThat(RequestIdFilter.accepted("a b")).isNull();
        assertThat(RequestIdFilter.accepted("a\nb")).isNull();
        assertThat(RequestIdFilter.accepted("请求")).isNull();
    }
}
