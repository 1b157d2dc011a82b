package io.onlyonce.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.onlyonce.spring.Idempotent;
import io.onlyonce.spring.OnlyOnceConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
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

    @Test
    void otherFailuresAreLeftToTheirOwnAnalyzers() {
        assertThat(new OnlyOnceFailureAnalyzer().analyze(new IllegalStateException("not ours"))).isNull();
    }
}
