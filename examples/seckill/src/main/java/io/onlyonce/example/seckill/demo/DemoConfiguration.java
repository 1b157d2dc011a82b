package io.onlyonce.example.seckill.demo;

import io.onlyonce.example.seckill.SeckillProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The demo mode's guard and its warning: {@link SecretsGuard} refuses forgeable secrets outside demo
 * mode before anything starts; once the service is ready it says where it listens, and in demo
 * mode, loudly, that it is a demo.
 */
@Configuration(proxyBeanMethods = false)
class DemoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(DemoConfiguration.class);

    private static boolean loopback(String address) {
        return address.equals("127.0.0.1") || address.equals("::1") || address.equals("localhost");
    }

    @Bean
    static SecretsGuard secretsGuard() {
        return new SecretsGuard();
    }

    @Bean
    ApplicationListener<ApplicationReadyEvent> readyReport(SeckillProperties properties) {
        return event -> {
            String port = event.getApplicationContext().getEnvironment().getProperty("local.server.port");
            if (!properties.demo().enabled() && event.getApplicationContext().containsBean("loginController")) {
                log.warn("seckill.auth.password-less-login is on: POST /api/login issues an access token for any"
                        + " user name without a password. For test environments only; never expose this instance.");
            }
            if (properties.demo().enabled()) {
                log.warn("********************************************************************************");
                log.warn("DEMO MODE: the JWT, payment and one-time token secrets are the demo values published in"
                        + " the README, so anyone who can reach this port can log in as any user, forge one-time"
                        + " tokens and mark orders paid. Never expose it to a network.");
                log.warn("For anything real start with a profile (postgres, mysql, redis, ...) and set"
                        + " SECKILL_JWT_SECRET, SECKILL_PAYMENT_SECRET and ONLYONCE_TOKEN_SECRET (32+ bytes each).");
                String address = event.getApplicationContext().getEnvironment().getProperty("server.address", "");
                log.warn(loopback(address)
                        ? "It listens on " + address + " only: this machine alone can reach it (--server.address names another"
                                + " address, at the risk above)."
                        : "It listens on " + (address.isBlank() ? "every address" : address)
                                + ", as asked: anyone who reaches that address can use the demo secrets.");
                log.warn("********************************************************************************");
            }
            if (port != null && event.getApplicationContext().containsBean("loginController")) {
                log.info("seckill is ready on http://localhost:{} (walk-through: scripts/demo.sh http://localhost:{};"
                        + " API: http://localhost:{}/swagger-ui.html)", port, port, port);
            } else if (port != null) {
                log.info("seckill is ready on http://localhost:{} (API: http://localhost:{}/swagger-ui.html; access"
                        + " tokens from your identity provider, signed with SECKILL_JWT_SECRET)", port, port);
            }
        };
    }
}
