package io.onlyonce.example.seckill.web;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ContentEncodingFilterTest {

    @Test
    void onlyIdentityCodingsPass() {
        assertThat(ContentEncodingFilter.identity("identity")).isTrue();
        assertThat(ContentEncodingFilter.identity("Identity, identity")).isTrue();
        assertThat(ContentEncodingFilter.identity("")).isTrue();
        assertThat(ContentEncodingFilter.identity(" , ")).isTrue();
        assertThat(ContentEncodingFilter.identity("gzip")).isFalse();
        assertThat(ContentEncodingFilter.identity("identity, gzip")).isFalse();
        assertThat(ContentEncodingFilter.identity("br")).isFalse();
    }
}
