package io.onlyonce.example.seckill.web;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProblemErrorReportValveTest {

    @Test
    void repeatsOnlyAPlainNormalisedPath() {
        assertThat(ProblemErrorReportValve.instance("/api/products")).isEqualTo("/api/products");
        assertThat(ProblemErrorReportValve.instance("/api/products?x=1")).isEqualTo("/api/products");
        assertThat(ProblemErrorReportValve.instance("/api/v1.2/file.json")).isEqualTo("/api/v1.2/file.json");
        assertThat(ProblemErrorReportValve.instance("/api/../api/login")).isNull();
        assertThat(ProblemErrorReportValve.instance("/api/./login")).isNull();
        assertThat(ProblemErrorReportValve.instance("/api/..")).isNull();
        assertThat(ProblemErrorReportValve.instance("//api/login")).isNull();
        assertThat(ProblemErrorReportValve.instance("/api/a%2Fb")).isNull();
        assertThat(ProblemErrorReportValve.instance("/api/<script>")).isNull();
        assertThat(ProblemErrorReportValve.instance("")).isNull();
        assertThat(ProblemErrorReportValve.instance("*")).isNull();
    }
}
