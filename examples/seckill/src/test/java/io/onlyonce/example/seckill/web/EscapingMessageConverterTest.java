package io.onlyonce.example.seckill.web;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import org.junit.jupiter.api.Test;

class EscapingMessageConverterTest {

    private final LoggerContext context = new LoggerContext();

    private String render(String logger, String pattern, Object... arguments) {
        EscapingMessageConverter converter = new EscapingMessageConverter();
        converter.start();
        Logger log = context.getLogger(logger);
        return converter.convert(new LoggingEvent(Logger.class.getName(), log, Level.INFO, pattern, null, arguments));
    }

    @Test
    void requestInputCannotEndTheLineOrSendEscapes() {
        String line = render("io.onlyonce.example.seckill.payment.PaymentService", "payment {} of order {}",
                "T-1\r\n2026-11-30 INFO forged: order paid", "\u001b[31mred\u2028x\u0085");

        assertThat(line).doesNotContain("\r", "\n", "\u001b", "\u2028", "\u0085")
                .isEqualTo("payment T-1\\r\\n2026-11-30 INFO forged: order paid of order \\u001b[31mred\\u2028x\\u0085");
    }

    @Test
    void plainTextAndTabsStayAsTheyAre() {
        assertThat(render("x", "order {}\tpaid", "0ABCDEFGHJKMN")).isEqualTo("order 0ABCDEFGHJKMN\tpaid");
        assertThat(LogText.escape("plain")).isSameAs("plain");
    }

    @Test
    void springBootsStartUpFailureReportKeepsItsLines() {
        assertThat(render("org.springframework.boot.diagnostics.LoggingFailureAnalysisReporter", "APPLICATION FAILED\nTO START"))
                .isEqualTo("APPLICATION FAILED\nTO START");
    }
}
