package io.onlyonce.example.seckill.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import org.apache.tomcat.util.http.MimeHeaders;
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

    @Test
    void classifiesTooManyHeadersByWhoRefusedThemNotByTheMessage() {
        MimeHeaders headers = new MimeHeaders();
        headers.setLimit(2);
        headers.addValue("a").setString("1");
        headers.addValue("b").setString("2");
        Throwable tooMany = catchThrowable(() -> headers.addValue("c"));
        assertThat(tooMany).isInstanceOf(IllegalStateException.class);

        assertThat(ProblemErrorReportValve.classify(400, tooMany, "/api/products")).isEqualTo(AppProblem.REQUEST_HEADER_TOO_LARGE);
        assertThat(ProblemErrorReportValve.classify(400, new IllegalArgumentException("wrapped", tooMany), "/api/products"))
                .isEqualTo(AppProblem.REQUEST_HEADER_TOO_LARGE);
        assertThat(ProblemErrorReportValve.classify(400, new IllegalStateException("More than the maximum allowed number of headers"),
                "/api/products")).as("the same words from elsewhere").isEqualTo(AppProblem.MALFORMED_HTTP_REQUEST);
        assertThat(ProblemErrorReportValve.classify(400, new IllegalArgumentException("Request header is too large"), "/api/products"))
                .isEqualTo(AppProblem.REQUEST_HEADER_TOO_LARGE);
        IllegalStateException untraced = new IllegalStateException("More than the maximum allowed number of headers, [100], were detected.");
        untraced.setStackTrace(new StackTraceElement[0]);
        assertThat(ProblemErrorReportValve.classify(400, untraced, "/api/products")).as("-XX:-StackTraceInThrowable")
                .isEqualTo(AppProblem.REQUEST_HEADER_TOO_LARGE);
        assertThat(ProblemErrorReportValve.classify(400, null, "/api/products")).isEqualTo(AppProblem.MALFORMED_HTTP_REQUEST);
    }
}
