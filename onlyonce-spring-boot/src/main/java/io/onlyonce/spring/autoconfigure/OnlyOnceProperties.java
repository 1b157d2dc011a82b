package io.onlyonce.spring.autoconfigure;

import io.onlyonce.engine.StoreFailurePolicy;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Settings under {@code onlyonce.*}.
 *
 * @param store where idempotency records, tokens and windows live
 * @param principalRequired whether a request without an authenticated principal is refused (400)
 *     on protected endpoints, so that keys and tokens are never shared between anonymous callers
 * @param problemTypeBase prefix of the {@code type} URI of every problem this library answers
 * @param key the Idempotency-Key strategy
 * @param token the one-time token strategy
 * @param dedup the servlet request de-dup filter
 * @param circuitBreaker the circuit breaker in front of the stores
 * @param memory the in-memory store
 * @param redis the Redis store
 * @param jdbc the JDBC store
 */
@ConfigurationProperties("onlyonce")
public record OnlyOnceProperties(
        @DefaultValue("memory") StoreType store,
        @DefaultValue("true") boolean principalRequired,
        @DefaultValue("urn:onlyonce:problem:") String problemTypeBase,
        @DefaultValue Key key,
        @DefaultValue Token token,
        @DefaultValue Dedup dedup,
        @DefaultValue CircuitBreaker circuitBreaker,
        @DefaultValue Memory memory,
        @DefaultValue Redis redis,
        @DefaultValue Jdbc jdbc) {

    /** The store implementations. */
    public enum StoreType {
        /** This JVM's memory: one instance only, lost on restart. */
        MEMORY,
        /** Redis through the application's {@code spring.data.redis.*} connection. */
        REDIS,
        /** The application's {@code DataSource}. */
        JDBC
    }

    /**
     * The Idempotency-Key strategy.
     *
     * @param header the request header carrying the key
     * @param retention how long a completed response is replayed
     * @param lease how long a running request holds its key before another may take over
     * @param storeFailurePolicy what to do when the store is unreachable: STRICT answers 503,
     *     PERMISSIVE runs the method unprotected
     * @param unavailableRetryAfter the Retry-After of a 503 under STRICT
     * @param replayHeaders response headers replayed besides Content-Type and Location
     * @param maxBodySize largest response body that is stored for replay; a larger answer
     *     releases its key
     */
    public record Key(
            @DefaultValue("Idempotency-Key") String header,
            @DefaultValue("24h") Duration retention,
            @DefaultValue("30s") Duration lease,
            @DefaultValue("STRICT") StoreFailurePolicy storeFailurePolicy,
            @DefaultValue("5s") Duration unavailableRetryAfter,
            @DefaultValue({}) List<String> replayHeaders,
            @DefaultValue("1MB") DataSize maxBodySize) {
    }

    /**
     * The one-time token strategy.
     *
     * @param header the request header carrying the token
     * @param path the path of the token endpoint ({@code POST} issues a token)
     * @param endpointEnabled whether the token endpoint is registered
     * @param ttl how long an issued token stays usable
     * @param secrets HMAC secrets (at least 32 bytes each); the first signs, all verify. When
     *     empty a random secret is made at start-up, which only suits a single instance
     */
    public record Token(
            @DefaultValue("Idempotency-Token") String header,
            @DefaultValue("/idempotency/tokens") String path,
            @DefaultValue("true") boolean endpointEnabled,
            @DefaultValue("10m") Duration ttl,
            @DefaultValue({}) List<String> secrets) {
    }

    /**
     * The servlet request de-dup filter (the gateway layer for services without a gateway).
     *
     * @param enabled whether the filter is registered
     * @param rules the protected routes
     */
    public record Dedup(
            @DefaultValue("false") boolean enabled,
            @DefaultValue({}) List<DedupRule> rules) {
    }

    /**
     * One de-dup rule.
     *
     * @param pattern a path pattern such as {@code /api/orders/**}
     * @param methods HTTP methods the rule applies to
     * @param window how long a repeat of the same fingerprint is refused with 429
     * @param fields what identifies "the same request": empty for method, path, sorted query,
     *     body hash and principal (or client IP); otherwise a list of {@code principal},
     *     {@code ip}, {@code path}, {@code query:<name>}, {@code header:<name>}, {@code body:<json field>}
     * @param ignoredParameters query parameters that change on every call and are left out
     */
    public record DedupRule(
            String pattern,
            @DefaultValue({"POST", "PUT", "PATCH", "DELETE"}) List<String> methods,
            @DefaultValue("3s") Duration window,
            @DefaultValue({}) List<String> fields,
            @DefaultValue({"timestamp", "nonce", "_", "t", "ts"}) List<String> ignoredParameters) {
    }

    /**
     * The circuit breaker in front of every store, so a dead server is not hammered.
     *
     * @param enabled whether store calls go through a circuit breaker
     * @param failureRateThreshold failure percentage that opens the circuit
     * @param minimumNumberOfCalls calls before the failure rate counts
     * @param slidingWindowSize calls in the sliding window
     * @param waitDurationInOpenState how long the circuit stays open before probing again
     */
    public record CircuitBreaker(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("50") float failureRateThreshold,
            @DefaultValue("10") int minimumNumberOfCalls,
            @DefaultValue("20") int slidingWindowSize,
            @DefaultValue("10s") Duration waitDurationInOpenState) {
    }

    /**
     * The in-memory store.
     *
     * @param maximumSize most records (and, separately, tokens and windows) kept
     */
    public record Memory(@DefaultValue("1000000") long maximumSize) {
    }

    /**
     * The Redis store.
     *
     * @param keyPrefix prefix of every key written
     * @param tokenShards hashes per minute bucket for tokens
     */
    public record Redis(@DefaultValue("oo:") String keyPrefix, @DefaultValue("256") int tokenShards) {
    }

    /**
     * The JDBC store.
     *
     * @param initializeSchema when to create the tables at start-up
     */
    public record Jdbc(@DefaultValue("EMBEDDED") SchemaInitialization initializeSchema) {
    }

    /** When the JDBC schema is created. */
    public enum SchemaInitialization {
        /** Never: the application's migrations (Flyway) create it. */
        NEVER,
        /** Only for an embedded database (H2). */
        EMBEDDED,
        /** Always (statements are {@code CREATE TABLE IF NOT EXISTS}). */
        ALWAYS
    }
}
