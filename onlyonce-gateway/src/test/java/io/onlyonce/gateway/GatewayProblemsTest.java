package io.onlyonce.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;

class GatewayProblemsTest {

    @Test
    void theFirstOfEnglishAndChineseTheClientNamesIsTheLanguage() {
        assertThat(GatewayProblems.locale(language("fr, zh;q=0.5"))).isEqualTo(Locale.CHINESE);
        assertThat(GatewayProblems.locale(language("zh-CN,zh;q=0.9,en;q=0.8"))).isEqualTo(Locale.CHINESE);
        assertThat(GatewayProblems.locale(language("en;q=0.9, zh;q=0.5"))).isEqualTo(Locale.ENGLISH);
        assertThat(GatewayProblems.locale(language("fr, de"))).isEqualTo(Locale.ENGLISH);
        assertThat(GatewayProblems.locale(language("zh;q=x"))).isEqualTo(Locale.ENGLISH);
        assertThat(GatewayProblems.locale(new HttpHeaders())).isEqualTo(Locale.ENGLISH);
    }

    @Test
    void onlyAPlainPathIsEchoedAsTheInstance() {
        assertThat(GatewayProblems.instance("/api/seckill/activities/1/tokens")).isEqualTo("/api/seckill/activities/1/tokens");
        assertThat(GatewayProblems.instance("/api/../actuator")).isNull();
        assertThat(GatewayProblems.instance("/api/orders%2F1")).isNull();
        assertThat(GatewayProblems.instance("/api//orders")).isNull();
        assertThat(GatewayProblems.instance("/a/<script>")).isNull();
        assertThat(GatewayProblems.instance("/api/é")).isNull();
        assertThat(GatewayProblems.instance("")).isNull();
    }

    private static HttpHeaders language(String value) {
        HttpHeaders headers = new HttpHeaders();
        headers.set(HttpHeaders.ACCEPT_LANGUAGE, value);
        return headers;
    }
}
