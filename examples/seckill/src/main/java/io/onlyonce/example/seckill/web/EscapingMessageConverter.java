package io.onlyonce.example.seckill.web;

import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * Logback's {@code %m}, {@code %msg} and {@code %message} with {@link LogText#escape}: a log
 * message is one line whatever request input it carries (a header, a path, a field of a payment
 * notice, a framework's exception text quoting them). Spring Boot's start-up failure report, which
 * is multi-line by design and never carries request input, is left as it is. Registered in
 * {@code logback-spring.xml}.
 */
public class EscapingMessageConverter extends MessageConverter {

    private static final String BOOT_DIAGNOSTICS = "org.springframework.boot.diagnostics";

    @Override
    public String convert(ILoggingEvent event) {
        String message = super.convert(event);
        if (message == null || event.getLoggerName().startsWith(BOOT_DIAGNOSTICS)) {
            return message;
        }
        return LogText.escape(message);
    }
}
