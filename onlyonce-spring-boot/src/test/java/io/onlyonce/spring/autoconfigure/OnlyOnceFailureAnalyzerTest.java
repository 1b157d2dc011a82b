package io.onlyonce.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.onlyonce.spring.Idempotent;
import io.onlyonce.spring.OnlyOnceConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * An OnlyOnce start-up refusal, however deep under other beans it is thrown, is Spring Boot's
 * "APPLICATION FAILED TO START" report with its description and action.
 */
@ExtendWith(OutputCaptureExtension.class)
class OnlyOnceFailureAnalyzerTest {

    static class PointsService {
        @Idempotent(key = "#orderNo")
        private String credit(String orderNo) {
            return orderNo;
        }
    }

    /** An unrelated bean that needs the refused one, as a security chain needs a service. */
    record Chain(PointsService points) {
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({OnlyOnceAutoConfiguration.class, AopAutoConfiguration.class})
    static class RefusedApplication {
        @Bean
        PointsService pointsService() {
            return new PointsService();
        }

        @Bean
        Chain chain(PointsService points) {
            return new Chain(points);
        }
    }

    @Test
    void aRefusalIsReportedWithItsAction(CapturedOutput output) {
        SpringApplication application = new SpringApplication(RefusedApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        Throwable failure = catchThrowable(application::run);

        assertThat(failure).hasRootCauseInstanceOf(OnlyOnceConfigurationException.class);
        FailureAnalysis analysis = new OnlyOnceFailureAnalyzer().analyze(failure);
        assertThat(analysis).isNotNull();
        assertThat(analysis.getDescription()).isEqualTo("OnlyOnce: @Idempotent cannot apply in bean 'pointsService':"
                + " PointsService.credit is private.");
        assertThat(analysis.getAction()).startsWith("Change what is named above, or remove @Idempotent");
        assertThat(output).contains("APPLICATION FAILED TO START")
                .contains("OnlyOnce: @Idempotent cannot apply in bean 'pointsService': PointsService.credit is private.")
                .contains("Action:")
                .contains("Change what is named above, or remove @Idempotent from the method");
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({OnlyOnceAutoConfiguration.class, AopAutoConfiguration.class})
    static class PlainApplication {
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            onlyonce.redis.command-timeout=0s          | onlyonce.redis.command-timeout must be positive, was PT0S.               | Set onlyonce.redis.command-timeout to a positive duration such as 10s.
            onlyonce.redis.request-budget=-1s          | onlyonce.redis.request-budget must be positive, was PT-1S.               | Set onlyonce.redis.request-budget to a positive duration such as 10s.
            onlyonce.key.lease=0s                      | onlyonce.key.lease must be at least one millisecond, was PT0S.           | Set onlyonce.key.lease to a positive duration of whole milliseconds such as 30s.
            onlyonce.key.retention=0s                  | onlyonce.key.retention must be at least one millisecond, was PT0S.       | Set onlyonce.key.retention to a positive duration of whole milliseconds such as 30s.
            'onlyonce.key.replay-excluded-headers= ,X' | onlyonce.key.replay-excluded-headers has an empty header name at position 1 of [, X]. | Set onlyonce.key.replay-excluded-headers to header names separated by commas, without an empty entry, such as X-Trace-Id,X-Debug.
            """)
    void anInvalidPropertyIsReportedNamingItAndItsFix(String property, String description, String action,
            CapturedOutput output) {
        SpringApplication application = new SpringApplication(PlainApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        Throwable failure = catchThrowable(() -> application.run("--" + property));

        assertThat(failure).hasRootCauseInstanceOf(OnlyOnceConfigurationException.class);
        FailureAnalysis analysis = new OnlyOnceFailureAnalyzer().analyze(failure);
        assertThat(analysis).isNotNull();
        assertThat(analysis.getDescription()).isEqualTo("OnlyOnce: " + description);
        assertThat(analysis.getAction()).isEqualTo(action);
        assertThat(output).contains("APPLICATION FAILED TO START")
                .contains("Description:" + System.lineSeparator() + System.lineSeparator() + "OnlyOnce: " + description)
                .contains("Action:" + System.lineSeparator() + System.lineSeparator() + action);
    }

    @Test
    void otherFailuresAreLeftToTheirOwnAnalyzers() {
        assertThat(new OnlyOnceFailureAnalyzer().analyze(new IllegalStateException("not ours"))).isNull();
    }
}
