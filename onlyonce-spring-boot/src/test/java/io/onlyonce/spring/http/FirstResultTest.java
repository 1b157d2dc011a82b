package io.onlyonce.spring.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class FirstResultTest {

    private static StoredResponse json(String body) {
        return new StoredResponse(201, List.of(new StoredResponse.Header("Content-Type", "application/json")),
                body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void numbersAreShownAsTheFirstAnswerWroteThem() {
        Object member = FirstResult.body(json("{\"orderNo\":\"A1\",\"amount\":1999.00,\"units\":3,\"rate\":0.10,\"big\":12345678901234567890.5}"));
        assertThat(JsonMapper.builder().build().writeValueAsString(member))
                .isEqualTo("{\"orderNo\":\"A1\",\"amount\":1999.00,\"units\":3,\"rate\":0.10,\"big\":12345678901234567890.5}");
    }

    @Test
    void aBodyThatIsNotJsonIsText() {
        assertThat(FirstResult.body(json("not json {"))).isEqualTo("not json {");
        assertThat(FirstResult.body(StoredResponse.of(200, "plain".getBytes(StandardCharsets.UTF_8)))).isEqualTo("plain");
    }
}
