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
        assertThat(encoded.length).isLessThan(body.length + 60);
    }

    @Test
    void rejectsCorruptInput() {
        assertThatThrownBy(() -> StoredResponseCodec.decode(new byte[] {9, 0, (byte) 200}))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StoredResponseCodec.decode(new byte[] {1, 0}))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void headersRejectInjection() {
        assertThatThrownBy(() -> new StoredResponse.Header("X-A", "v\r\nSet-Cookie: x"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new StoredResponse.Header("Bad Name", "v")).isInstanceOf(IllegalArgumentException.class);
        assertThat(StoredResponse.of(200, "ok".getBytes(StandardCharsets.UTF_8)).header("location")).isEmpty();
    }
}
