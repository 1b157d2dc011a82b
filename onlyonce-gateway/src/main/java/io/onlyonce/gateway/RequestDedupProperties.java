package io.onlyonce.gateway;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Settings of the gateway's request de-dup, {@code onlyonce.gateway.*}. The rules themselves are
 * the arguments of each route's {@code RequestDedup} filter.
 *
 * @param enabled Whether the {@code RequestDedup} filter factory is set up.
 * @param redisUrl The Redis server of the window keys, as a Lettuce URI
 *     ({@code redis://host:port/db}, {@code rediss://…}, {@code redis-sentinel://…}).
 * @param keyPrefix Prepended to every window key: {@code {prefix}w:{fingerprint hex}}, the layout of
 *     {@code RedisWindowStore}.
 * @param timeout The budget of one Redis call; a slower answer lets the request through unchecked
 *     (fail open), so a slow Redis never stalls the gateway for longer.
 * @param maxBodySize The largest body read and fingerprinted; a larger one is answered 413.
 * @param problemTypeBase The start of every problem {@code type} URI.
 * @param keyHeader The request header of the idempotency key (an RFC 8941 string or bare, as the
 *     services read it). A request with the same key as the one that opened its window is the
 *     client's retry of it and passes, so that the service replays its answer; empty: every repeat
 *     is refused.
 * @param circuitBreaker The circuit breaker in front of Redis.
 */
@ConfigurationProperties("onlyonce.gateway")
public record RequestDedupProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("redis://127.0.0.1:6379") String redisUrl,
        @DefaultValue("oo:") String keyPrefix,
        @DefaultValue("250ms") Duration timeout,
        @DefaultValue("1MB") DataSize maxBodySize,
        @DefaultValue("urn:onlyonce:problem:") String problemTypeBase,
        @DefaultValue("Idempotency-Key") String keyHeader,
        @DefaultValue CircuitBreaker circuitBreaker) {

    /**
     * The circuit breaker in front of Redis, so a dead server is not waited for on every request.
     *
     * @param failureRateThreshold Failure percentage at which the circuit opens.
     * @param minimumNumberOfCalls How many calls are needed before the failure rate counts.
     * @param slidingWindowSize How many calls the failure rate is computed over.
     * @param waitDurationInOpenState How long the circuit stays open before it lets probes through.
     */
    public record CircuitBreaker(
            @DefaultValue("50") float failureRateThreshold,
            @DefaultValue("10") int minimumNumberOfCalls,
            @DefaultValue("20") int slidingWindowSize,
            @DefaultValue("10s") Duration waitDurationInOpenState) {
    }
}
