package io.onlyonce.example.seckill;

import java.time.Clock;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The OnlyOnce reference flash-sale service. {@code java -jar} starts it on H2 (file under
 * {@code ./data/seckill}) with in-memory OnlyOnce stores; profiles {@code redis}, {@code postgres}
 * and {@code mysql} switch each part to a real server.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
@EnableScheduling
public class SeckillApplication {

    public static void main(String[] args) {
        SpringApplication.run(SeckillApplication.class, args);
    }

    /** The one clock of the service (orders, sweeper, JWTs, OnlyOnce stores); tests replace it. */
    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }
}
