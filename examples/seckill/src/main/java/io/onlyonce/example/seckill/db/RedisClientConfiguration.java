package io.onlyonce.example.seckill.db;

import io.lettuce.core.metrics.CommandLatencyRecorder;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Lettuce's own command latency collector is on whenever HdrHistogram and LatencyUtils are on the
 * class path (Micrometer brings both): it records every Redis command into per-command histograms
 * and publishes them as Lettuce events that nothing here reads. Off, it costs nothing; Redis latency
 * shows in the callers' timers ({@code onlyonce.*}, {@code http.server.requests}).
 */
@Configuration(proxyBeanMethods = false)
class RedisClientConfiguration {

    @Bean
    ClientResourcesBuilderCustomizer noCommandLatencyRecorder() {
        return builder -> builder.commandLatencyRecorder(CommandLatencyRecorder.disabled());
    }
}
