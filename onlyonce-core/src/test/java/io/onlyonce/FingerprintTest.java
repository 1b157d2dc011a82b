package io.onlyonce;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class FingerprintTest {

    private static Fingerprint json(String body) {
        return Fingerprint.builder().add("POST").add("/orders").addJson(body.getBytes(UTF_8)).build();
    }

    @Test
    void fieldOrderAndWhitespaceDoNotChangeAJsonFingerprint() {
        Fingerprint a = json("{\"productId\":7,\"quantity\":1,\"meta\":{\"b\":[1,2],\"a\":null}}");
        Fingerprint b = json(" {\n  \"quantity\" : 1 ,\"meta\":{\"a\":null, \"b\":[1, 2]},\t\"productId\": 7 }\n");
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    }

    @Test
    void valuesArrayOrderAndNumberTextDoCount() {
        assertThat(json("{\"q\":1}")).isNotEqualTo(json("{\"q\":2}"));
        assertThat(json("{\"a\":[1,2]}")).isNotEqualTo(json("{\"a\":[2,1]}"));
        assertThat(json("{\"price\":10.1}")).isNotEqualTo(json("{\"price\":10.10000000000000000001}"));
        assertThat(json("{\"a\":\"1\"}")).isNotEqualTo(json("{\"a\":1}"));
    }

    @Test
    void bodiesThatAreNotOneJsonDocumentAreHashedAsSent() {
        assertThat(json("not json")).isEqualTo(json("not json"));
        assertThat(json("not json")).isNotEqualTo(json("not  json"));
        assertThat(json("{\"a\":1,\"a\":2}")).isNotEqualTo(json("{\"a\":2}"));
        assertThat(json("{\"a\":1} {\"b\":2}")).isNotEqualTo(json("{\"a\":1}"));
    }

    @Test
    void partsAreLengthPrefixed() {
        assertThat(Fingerprint.of("ab", "c")).isNotEqualTo(Fingerprint.of("a", "bc"));
        assertThat(Fingerprint.of("ab", "c")).isEqualTo(Fingerprint.of("ab", "c"));
    }

    @Test
    void hexRoundTripsAndLengthIsChecked() {
        Fingerprint fp = Fingerprint.of("x");
        assertThat(fp.hex()).hasSize(64);
        assertThat(Fingerprint.ofHex(fp.hex())).isEqualTo(fp);
        assertThat(Fingerprint.of(fp.bytes())).isEqualTo(fp);
        assertThatThrownBy(() -> Fingerprint.ofHex("abc")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Fingerprint.of(new byte[31])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void textWithAnUnpairedSurrogateNeverSharesAFingerprintWithAQuestionMark() {
        org.assertj.core.api.Assertions.assertThat(Fingerprint.of("alice\uD800"))
                .isNotEqualTo(Fingerprint.of("alice?"))
                .isNotEqualTo(Fingerprint.of("alice\uDBFF"))
                .isEqualTo(Fingerprint.of("alice\uD800"));
    }
}
