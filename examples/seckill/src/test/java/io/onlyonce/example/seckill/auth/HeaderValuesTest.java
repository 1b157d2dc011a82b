package io.onlyonce.example.seckill.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class HeaderValuesTest {

    /** Spring Security's default rule for header values. */
    private static final Pattern FIREWALL_DEFAULT = Pattern.compile("[\\p{IsAssigned}&&[^\\p{IsControl}]]*");

    private final HeaderValues values = new HeaderValues();

    @Test
    void decidesEveryCodePointAsTheFirewallsPatternDoesExceptTheTabHttpAllows() {
        for (int codePoint = 0; codePoint <= Character.MAX_CODE_POINT; codePoint++) {
            String value = "a" + new String(Character.toChars(codePoint)) + "b";
            boolean expected = codePoint == '\t' || FIREWALL_DEFAULT.matcher(value).matches();
            assertThat(values.test(value)).as("U+%04X", codePoint).isEqualTo(expected);
        }
    }

    @Test
    void acceptsUsualValuesAndRefusesControlCharacters() {
        assertThat(values.test("Bearer eyJhbGciOiJIUzI1NiJ9.e30.x")).isTrue();
        assertThat(values.test("")).isTrue();
        assertThat(values.test("用户 😀")).isTrue();
        assertThat(values.test("a\r\nX-Injected: 1")).isFalse();
        assertThat(values.test("a\u0000b")).isFalse();
        assertThat(values.test("a\u0085b")).isFalse();
        assertThat(values.test("a\tb")).as("HTAB is field content (RFC 9110 5.5)").isTrue();
        assertThat(values.test("\uD800")).isEqualTo(FIREWALL_DEFAULT.matcher("\uD800").matches());
    }
}
