package io.onlyonce.example.seckill.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.example.seckill.SeckillApplication;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.TestPropertySource;

/** The safety rules on the embedded default: H2, the in-memory OnlyOnce stores, demo mode (no profile). */
@TestPropertySource(properties = "spring.datasource.url=jdbc:h2:mem:seckill-safety;DB_CLOSE_DELAY=-1")
@ExtendWith(OutputCaptureExtension.class)
class EmbeddedSafetyTest extends AbstractSafetyScenarios {

    @Override
    protected List<String> nonDemoStart() {
        // the embedded default with the demo mode switched off: its demo secrets are no longer accepted
        return List.of("--seckill.demo.enabled=false", "--spring.datasource.url=jdbc:h2:mem:seckill-refused");
    }

    @Test
    void theEmbeddedDefaultIsADemoAndSaysSoLoudly(CapturedOutput output) {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SeckillApplication.class).run(
                "--server.port=0", "--spring.datasource.url=jdbc:h2:mem:seckill-demo-warning;DB_CLOSE_DELAY=-1",
                "--seckill.order.sweeper-enabled=false")) {
            assertThat(context.getEnvironment().getProperty("seckill.demo.enabled")).isEqualTo("true");
            assertThat(output.getOut()).contains("WARN").contains("DEMO MODE").contains("SECKILL_JWT_SECRET");
        }
    }
}
