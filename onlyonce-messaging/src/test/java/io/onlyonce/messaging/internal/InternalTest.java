package io.onlyonce.messaging.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class InternalTest {

    @Test
    void shortErrorsAreOneLineWithoutWrappersAndCut() {
        assertThat(ShortError.of(new CompletionException(new ExecutionException(new IllegalStateException("nack\r\nagain")))))
                .isEqualTo("IllegalStateException: nack  again");
        assertThat(ShortError.of(new RuntimeException(null, new IllegalArgumentException("the cause says"))))
                .isEqualTo("RuntimeException: the cause says");
        assertThat(ShortError.of(new IllegalStateException())).isEqualTo("IllegalStateException");
        String cut = ShortError.clean("x".repeat(499) + "😀😀");
        assertThat(cut).hasSize(499 + 1).endsWith("x?");
        assertThat(ShortError.clean("a\uD800b")).isEqualTo("a?b");
    }

    @Test
    void headersRoundTripInOrder() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("z", "1");
        headers.put("a", "\"quoted\" \\ 订单 😀\n");
        headers.put("empty", "");
        String json = HeadersJson.write(headers);
        assertThat(json).startsWith("{\"z\":\"1\",\"a\":");
        assertThat(HeadersJson.read(json)).containsExactlyEntriesOf(headers);
        assertThat(HeadersJson.read("{}")).isEmpty();
        assertThatThrownBy(() -> HeadersJson.read("[1]")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> HeadersJson.read("{\"a\":{\"b\":1}}")).isInstanceOf(IllegalStateException.class);
    }
}
