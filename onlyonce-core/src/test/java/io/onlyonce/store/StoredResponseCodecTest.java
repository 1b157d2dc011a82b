package io.onlyonce.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class StoredResponseCodecTest {

    @Test
    void roundTripsStatusHeadersAndBinaryBody() {
        byte[] body = new byte[300];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) (i * 7);
        }
        StoredResponse response = new StoredResponse(201, List.of(
                new StoredResponse.Header("Location", "/orders/订单-1"),
                new StoredResponse.Header("X-Request-ID", "abc")), body);
        byte[] encoded = StoredResponseCodec.encode(response);
        assertThat(StoredResponseCodec.decode(encoded)).isEqualTo(response);
        assertThat(encoded.length).as("7 bytes of framing and 4 per text around the content").isEqualTo(1 + 2 + 4 + 4 * 4 + "Location".length() + "/orders/订单-1".getBytes(StandardCharsets.UTF_8).length + "X-Request-ID".length() + 3 + body.length);
    }

    @Test
    void rejectsCorruptInput() {
        assertThatThrownBy(() -> StoredResponseCodec.decode(new byte[] {9, 0, (byte) 200}))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StoredResponseCodec.decode(new byte[] {2, 0}))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anyNumberAndSizeOfValidHeadersEncodes() {
        List<StoredResponse.Header> many = new java.util.ArrayList<>();
        for (int i = 0; i < 70_000; i++) {
            many.add(new StoredResponse.Header("Link", "</p/" + i + ">; rel=\"item\""));
        }
        many.add(new StoredResponse.Header("Link", "<" + "x".repeat(100_000) + ">; rel=\"next\""));
        StoredResponse response = new StoredResponse(201, many, new byte[] {1});
        StoredResponse decoded = StoredResponseCodec.decode(StoredResponseCodec.encode(response));
        assertThat(decoded).isEqualTo(response);
        assertThat(decoded.headers()).hasSize(70_001);
    }

    @Test
    void truncatedOrForeignBytesAreRefused() {
        byte[] encoded = StoredResponseCodec.encode(new StoredResponse(200,
                List.of(new StoredResponse.Header("X-A", "value")), new byte[0]));
        for (int cut = 1; cut < encoded.length - 1; cut++) {
            byte[] truncated = java.util.Arrays.copyOf(encoded, cut);
            assertThatThrownBy(() -> StoredResponseCodec.decode(truncated)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> StoredResponseCodec.decode(new byte[0])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StoredResponseCodec.decode("{\"json\":true}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void headersRejectInjection() {
        assertThatThrownBy(() -> new StoredResponse.Header("X-A", "nul\u0000")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new StoredResponse.Header("X-A", "bell\u0007")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new StoredResponse.Header("X-A", "half\uD800")).isInstanceOf(IllegalArgumentException.class);
        assertThat(new StoredResponse.Header("X-A", "tab\there 订单 ✓").value()).contains("\t");
        assertThatThrownBy(() -> new StoredResponse.Header("X-A", "v\r\nSet-Cookie: x"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new StoredResponse.Header("Bad Name", "v")).isInstanceOf(IllegalArgumentException.class);
        assertThat(StoredResponse.of(200, "ok".getBytes(StandardCharsets.UTF_8)).header("location")).isEmpty();
    }
}
