package io.onlyonce.example.seckill.web;

import org.apache.catalina.Host;
import org.apache.catalina.Lifecycle;
import org.apache.catalina.Valve;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Puts {@link ProblemErrorReportValve} in place of Tomcat's HTML error report (and of the one
 * Spring Boot configures), just before the host starts, so that whichever customizer ran last,
 * exactly one error report valve is there: ours.
 */
@Configuration(proxyBeanMethods = false)
class TomcatErrorConfiguration {

    @Bean
    WebServerFactoryCustomizer<TomcatServletWebServerFactory> problemErrorReport(Problems problems) {
        return factory -> factory.addContextCustomizers(context -> {
            if (!(context.getParent() instanceof Host host)) {
                return;
            }
            if (host instanceof StandardHost standard) {
                standard.setErrorReportValveClass(ProblemErrorReportValve.class.getName());
            }
            host.addLifecycleListener(event -> {
                if (Lifecycle.BEFORE_START_EVENT.equals(event.getType())) {
                    for (Valve valve : host.getPipeline().getValves()) {
                        if (valve instanceof ErrorReportValve && !(valve instanceof ProblemErrorReportValve)) {
                            host.getPipeline().removeValve(valve);
                        }
                    }
                    boolean present = false;
                    for (Valve valve : host.getPipeline().getValves()) {
                        present |= valve instanceof ProblemErrorReportValve;
                    }
                    if (!present) {
                        host.getPipeline().addValve(new ProblemErrorReportValve(problems));
                    }
                }
            });
        });
    }
}
