package io.onlyonce.example.seckill.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
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

    @Test
    void newIdsAreDistinctVersionFourUuids() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            String id = RequestIdFilter.newId();
            UUID parsed = UUID.fromString(id);
            assertThat(parsed.version()).isEqualTo(4);
            assertThat(parsed.variant()).isEqualTo(2);
            assertThat(parsed.toString()).isEqualTo(id);
            assertThat(seen.add(id)).isTrue();
        }
    }
}
