package io.onlyonce.example.seckill;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Settings under {@code seckill.*}.
 *
 * @param maxBodySize largest request body accepted (413 above)
 * @param auth the demo login
 * @param payment the payment platform's notifications
 * @param order orders and the unpaid-order sweeper
 * @param onlyonce the OnlyOnce layers of this service
 * @param demoData the catalogue and flash sale created on an empty database
 */
@ConfigurationProperties("seckill")
public record SeckillProperties(
        @DefaultValue("16KB") DataSize maxBodySize,
        @DefaultValue Auth auth,
        @DefaultValue Payment payment,
        @DefaultValue Order order,
        @DefaultValue OnlyOnce onlyonce,
        @DefaultValue DemoData demoData) {

    /**
     * The demo login.
     *
     * @param jwtSecret HS256 secret of the access tokens, at least 32 bytes
     * @param tokenTtl how long an access token is valid
     * @param issuer the {@code iss} claim issued and required
     */
    public record Auth(String jwtSecret, @DefaultValue("2h") Duration tokenTtl,
            @DefaultValue("onlyonce-seckill") String issuer) {

        public Auth {
            requireSecret("seckill.auth.jwt-secret", jwtSecret);
        }
    }

    /**
     * The payment platform's notifications.
     *
     * @param secret HMAC-SHA256 secret the platform signs each notification body with, at least 32 bytes
     */
    public record Payment(String secret) {

        public Payment {
            requireSecret("seckill.payment.secret", secret);
        }
    }

    /**
     * Orders.
     *
     * @param unpaidTimeout how long an order may stay unpaid before the sweeper cancels it
     * @param sweepInterval how often the sweeper runs
     * @param sweeperEnabled whether the scheduled sweeper runs (tests call it by hand)
     * @param sweepBatchSize most orders one sweep cancels
     */
    public record Order(@DefaultValue("15m") Duration unpaidTimeout, @DefaultValue("30s") Duration sweepInterval,
            @DefaultValue("true") boolean sweeperEnabled, @DefaultValue("500") int sweepBatchSize) {
    }

    /**
     * The OnlyOnce layers.
     *
     * @param enabled whether order endpoints carry {@code @Idempotent}; false leaves only the data
     *     layer (the benchmark's baseline; also switch off {@code onlyonce.dedup.enabled})
     */
    public record OnlyOnce(@DefaultValue("true") boolean enabled) {
    }

    /**
     * Demo data.
     *
     * @param enabled whether an empty database gets three products and a running flash sale
     * @param flashSaleStock stock of the demo flash sale
     * @param flashSaleLength how long the demo flash sale runs from start-up
     */
    public record DemoData(@DefaultValue("true") boolean enabled, @DefaultValue("100") int flashSaleStock,
            @DefaultValue("30d") Duration flashSaleLength) {
    }

    static void requireSecret(String name, String secret) {
        if (secret == null || secret.getBytes(StandardCharsets.UTF_8).length < 32) {
            throw new IllegalArgumentException(name + " must be at least 32 bytes");
        }
    }
}
