package io.onlyonce.example.seckill.support;

import io.onlyonce.testing.MutableClock;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

/**
 * The service's clock, standing still until a test moves it: the unpaid-order timeout, request
 * windows, token and JWT expiry are tested by moving time, never by sleeping.
 */
@TestConfiguration(proxyBeanMethods = false)
public class TestClockConfiguration {

    @Bean
    @Primary
    MutableClock testClock() {
        return MutableClock.startingNow();
    }
}
