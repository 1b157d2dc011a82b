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
 * @param enabled Whether OnlyOnce is active. When false, no OnlyOnce bean is created and methods
 *     annotated @Idempotent run unprotected.
 * @param store Where idempotency records, one-time tokens and de-dup windows live. Use a shared
 *     store (redis or jdbc) as soon as more than one instance of the application runs.
 * @param principalRequired Whether a request without an authenticated principal is refused (400) on
 *     protected endpoints, so that keys and tokens are never shared between anonymous callers.
 * @param problemTypeBase Prefix of the type URI of every problem detail this library answers.
 * @param key Settings of the Idempotency-Key strategy.
 * @param token Settings of the one-time token strategy.
 * @param dedup Settings of the servlet request de-dup filter.
 * @param circuitBreaker Settings of the circuit breaker in front of every store.
 * @param memory Settings of the in-memory store.
 * @param redis Settings of the Redis store.
 * @param jdbc Settings of the JDBC store.
 * @param messaging Settings of the message layer (transactional outbox, relay, idempotent consumers).
 */
@ConfigurationProperties("onlyonce")
public record OnlyOnceProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("memory") StoreType store,
        @DefaultValue("true") boolean principalRequired,
        @DefaultValue("urn:onlyonce:problem:") String problemTypeBase,
        @DefaultValue Key key,
        @DefaultValue Token token,
        @DefaultValue Dedup dedup,
        @DefaultValue CircuitBreaker circuitBreaker,
        @DefaultValue Memory memory,
        @DefaultValue Redis redis,
        @DefaultValue Jdbc jdbc,
        @DefaultValue Messaging messaging) {

    /** The store implementations. */
    public enum StoreType {
        /** This JVM's memory: one instance only, lost on restart. */
        MEMORY,
        /** Redis through the application's {@code spring.data.redis.*} connection, shared by every instance. */
        REDIS,
        /** The application's {@code DataSource}, shared by every instance. */
        JDBC;

        /** Whether every instance of the application sees the same records. */
        public boolean isShared() {
            return this != MEMORY;
        }
    }

    /**
     * The Idempotency-Key strategy.
     *
     * @param header Name of the request header carrying the idempotency key.
     * @param retention How long a completed response is kept and replayed to retries with the same
     *     key. After it, the same key executes again.
     * @param lease How long a running request holds its key before another request may take over,
     *     for a holder that crashed. Set it above the slowest expected execution.
     * @param storeFailurePolicy What to do when the store is unreachable: STRICT answers 503 and runs
     *     nothing, PERMISSIVE runs the method unprotected and counts it.
     * @param unavailableRetryAfter The Retry-After of a 503 answered because the store is unreachable.
     * @param replayExcludedHeaders Response headers a replay does not carry. A replay carries every
     *     header the application wrote for the first answer (not those already set before the
     *     handler ran, such as an outer filter's X-Request-ID), except Set-Cookie, Set-Cookie2, Date,
     *     Content-Length, Transfer-Encoding, Connection, Keep-Alive, Proxy-Authenticate,
     *     Proxy-Authorization, Proxy-Connection, TE, Trailer, Upgrade and Idempotent-Replayed, and
     *     except these.
     * @param maxBodySize Two limits in one. A request body larger than this cannot be fingerprinted
     *     and is refused with 413 before the method runs (by the de-dup filter too). A response body
     *     larger than this is not stored: the work ran, so its key stays taken, and a retry is told
     *     that the request was processed (422 idempotency-response-not-kept) instead of running again.
     */
    public record Key(
            @DefaultValue("Idempotency-Key") String header,
            @DefaultValue("24h") Duration retention,
            @DefaultValue("30s") Duration lease,
            @DefaultValue("STRICT") StoreFailurePolicy storeFailurePolicy,
            @DefaultValue("5s") Duration unavailableRetryAfter,
            @DefaultValue({}) List<String> replayExcludedHeaders,
            @DefaultValue("1MB") DataSize maxBodySize) {
    }

    /**
     * The one-time token strategy.
     *
     * @param enabled Whether one-time tokens are available: the token endpoint and the TOKEN
     *     strategy. When false, a TOKEN method fails start-up.
     * @param header Name of the request header carrying the one-time token.
     * @param path Path of the token endpoint; a POST there issues a token.
     * @param endpointEnabled Whether the token endpoint is registered.
     * @param ttl How long an issued token stays usable, measured by the store.
     * @param secrets HMAC secrets of at least 32 bytes each; the first signs new tokens, all verify
     *     (rotation). Required with a shared store, so that every instance accepts every other's
     *     tokens: start-up fails without them. With the memory store a random secret is made at
     *     start-up.
     * @param rateLimit Limits on how many tokens one principal may be issued.
     */
    public record Token(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("Idempotency-Token") String header,
            @DefaultValue("/idempotency/tokens") String path,
            @DefaultValue("true") boolean endpointEnabled,
            @DefaultValue("10m") Duration ttl,
            @DefaultValue({}) List<String> secrets,
            @DefaultValue TokenRateLimit rateLimit) {
    }

    /**
     * Limits on the token endpoint, per principal, counted in the store so they hold across
     * instances. Beyond a limit the endpoint answers 429 with Retry-After.
     *
     * @param maxRequests How many tokens one principal may request per window; 0 for no limit.
     * @param window The window over which max-requests is counted.
     * @param maxLive How many tokens one principal may be issued within one token time to live, so
     *     nobody can hoard tokens or fill the store; 0 for no limit.
     */
    public record TokenRateLimit(
            @DefaultValue("30") int maxRequests,
            @DefaultValue("1m") Duration window,
            @DefaultValue("100") int maxLive) {
    }

    /**
     * The servlet request de-dup filter (the gateway layer for services without a gateway).
     *
     * @param enabled Whether the request de-dup filter is registered.
     * @param rules The routes the filter protects; the first matching rule applies.
     */
    public record Dedup(
            @DefaultValue("false") boolean enabled,
            @DefaultValue({}) List<io.onlyonce.spring.http.DedupRule> rules) {
    }


    /**
     * The circuit breaker in front of every store, so a dead server is not hammered.
     *
     * @param enabled Whether store calls go through a circuit breaker.
     * @param failureRateThreshold Failure percentage at which the circuit opens.
     * @param minimumNumberOfCalls How many calls are needed before the failure rate counts.
     * @param slidingWindowSize How many calls the failure rate is computed over.
     * @param waitDurationInOpenState How long the circuit stays open before it lets a request through
     *     as a trial, when no probe (onlyonce.circuit-breaker.probe-interval) has closed it before.
     * @param probeInterval How often a store whose circuit is open is asked whether it answers again
     *     (Redis: a script that only returns 1). On an answer the circuit turns half-open, and the
     *     probe makes the trial calls itself, so the circuit closes about this long after the store is
     *     back, without waiting for wait-duration-in-open-state nor for requests.
     * @param permittedNumberOfCallsInHalfOpenState How many trial calls a half-open circuit lets
     *     through; when they succeed it closes.
     * @param slowCallDurationThreshold How long a store call may take before it counts as slow. Keep
     *     it below the store's own budget (onlyonce.redis.command-timeout), so that a store that
     *     answers slowly opens the circuit as one that fails does.
     * @param slowCallRateThreshold Percentage of slow calls at which the circuit opens.
     */
    public record CircuitBreaker(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("50") float failureRateThreshold,
            @DefaultValue("10") int minimumNumberOfCalls,
            @DefaultValue("20") int slidingWindowSize,
            @DefaultValue("30s") Duration waitDurationInOpenState,
            @DefaultValue("1500ms") Duration slowCallDurationThreshold,
            @DefaultValue("50") float slowCallRateThreshold,
            @DefaultValue("1s") Duration probeInterval,
            @DefaultValue("2") int permittedNumberOfCallsInHalfOpenState) {
    }

    /**
     * The in-memory store.
     *
     * @param maximumSize How many records (and, separately, tokens and windows) are kept at most.
     *     A full store refuses new keys and tokens rather than evicting live ones.
     */
    public record Memory(@DefaultValue("1000000") long maximumSize) {
    }

    /**
     * The Redis store.
     *
     * @param keyPrefix Prefix of every key the stores write.
     * @param tokenShards How many hashes the tokens of one expiry minute are spread over.
     * @param commandTimeout The budget of one store call: the longest it waits for its connection and
     *     its answer, whatever spring.data.redis.timeout says (Lettuce's default is 60 s). A call over
     *     budget counts as a store failure (STRICT: 503).
     * @param requestBudget How long the store calls of one HTTP request may wait in all: every call
     *     waits at most what is left of it (or command-timeout, when shorter), and once it is spent the
     *     request's next store call fails at once (STRICT: 503). Time outside store calls is not
     *     counted, and the calls that record work already done (completing a record, releasing a
     *     key) keep command-timeout. A servlet filter opens it, so it applies to Spring MVC only: on
     *     WebFlux each store call has command-timeout.
     */
    public record Redis(
            @DefaultValue("oo:") String keyPrefix,
            @DefaultValue("256") int tokenShards,
            @DefaultValue("2s") Duration commandTimeout,
            @DefaultValue("2s") Duration requestBudget) {

        public Redis {
            PropertyChecks.positive(commandTimeout, "onlyonce.redis.command-timeout");
            PropertyChecks.positive(requestBudget, "onlyonce.redis.request-budget");
        }
    }

    /**
     * The JDBC store.
     *
     * @param initializeSchema When the tables are created at start-up.
     * @param joinTransaction Whether an idempotency record is written through the connection of the
     *     Spring transaction active on the same DataSource: for an @Idempotent service method, claimed
     *     and completed inside the business transaction, so record and effect commit or roll back
     *     together, also across a crash between the commit and the completion, and without a second
     *     connection per request (a handler's answer is recorded after its transaction committed). A concurrent
     *     duplicate then waits for the first request's transaction instead of being told it is in
     *     progress. Outside a transaction, and when false, every store statement commits on its own
     *     connection.
     */
    public record Jdbc(
            @DefaultValue("EMBEDDED") SchemaInitialization initializeSchema,
            @DefaultValue("false") boolean joinTransaction) {
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

    /**
     * The message layer: needs io.onlyonce:onlyonce-messaging and a single DataSource.
     *
     * @param enabled Whether the outbox, the relay and the consumers are configured.
     * @param transport The broker messages go through: in-process (the embedded default, one
     *     instance) or rabbit (onlyonce-messaging-rabbit and spring-boot-starter-amqp, with
     *     spring.rabbitmq.publisher-confirm-type=correlated and spring.rabbitmq.publisher-returns=true)
     *     or kafka (onlyonce-messaging-kafka and spring-kafka, on the spring.kafka.* connection).
     * @param initializeSchema When the outbox and inbox tables are created at start-up.
     * @param relay Settings of the relay that publishes the outbox.
     * @param consumer Settings of the idempotent consumers.
     * @param purgeAfter How long sent outbox rows and inbox rows are kept before they are purged.
     *     Keep inbox rows longer than a message can be redelivered.
     * @param rabbit Settings of the RabbitMQ transport.
     * @param kafka Settings of the Kafka transport and of the Kafka listener container factories.
     * @param metricsInterval How often the outbox's backlog is read for its gauges (in the
     *     background: a scrape never waits for the database); one read also has at most this long.
     */
    public record Messaging(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("in-process") TransportType transport,
            @DefaultValue("EMBEDDED") SchemaInitialization initializeSchema,
            @DefaultValue Relay relay,
            @DefaultValue Consumer consumer,
            @DefaultValue("7d") Duration purgeAfter,
            @DefaultValue Rabbit rabbit,
            @DefaultValue Kafka kafka,
            @DefaultValue("15s") Duration metricsInterval) {
    }

    /** The transports of the message layer. */
    public enum TransportType {
        /** In this JVM: messages are handed to the consumers directly, confirmed when consumed. */
        IN_PROCESS,
        /** RabbitMQ through Spring AMQP, with publisher confirms. */
        RABBIT,
        /** Apache Kafka, on an idempotent producer with acks=all. */
        KAFKA
    }

    /**
     * The outbox relay.
     *
     * @param batchSize How many due messages one poll claims.
     * @param pollInterval How long the relay waits between polls when nothing wakes it.
     * @param lease How long a claimed message is the relay's before another relay may send it again.
     * @param publishTimeout How long the relay waits for the broker's confirm; shorter than the lease.
     * @param maxAttempts How many attempts a message gets before it is FAILED.
     * @param initialBackoff The wait before the second attempt; it doubles, with jitter, up to max-backoff.
     * @param maxBackoff The longest wait between two attempts.
     * @param pipelineDepth How many claimed batches the relay keeps in flight: it claims and publishes
     *     the next while the broker confirms one (1 to 16).
     * @param deleteSent Whether a confirmed message's row is deleted instead of marked SUCCESS: the
     *     cheapest write, and no purge; the outbox then keeps only unsent and FAILED messages.
     * @param listenNotify PostgreSQL only: each business transaction that records a message sends
     *     a NOTIFY, and the relay LISTENs, so that a relay in another instance publishes within
     *     milliseconds instead of at its next poll. A relay in the instance that committed is woken
     *     without it; this costs every notifying commit a moment under one server-wide lock.
     */
    public record Relay(
            @DefaultValue("100") int batchSize,
            @DefaultValue("1s") Duration pollInterval,
            @DefaultValue("60s") Duration lease,
            @DefaultValue("30s") Duration publishTimeout,
            @DefaultValue("10") int maxAttempts,
            @DefaultValue("1s") Duration initialBackoff,
            @DefaultValue("10m") Duration maxBackoff,
            @DefaultValue("2") int pipelineDepth,
            @DefaultValue("false") boolean deleteSent,
            @DefaultValue("false") boolean listenNotify) {
    }

    /**
     * The idempotent consumers.
     *
     * @param maxAttempts How many times a delivery is tried in this instance before it is handed
     *     back to the broker, or dead-lettered for a poison message.
     * @param initialBackoff The wait before the second try.
     * @param maxBackoff The longest wait between two tries.
     * @param workers How many threads each consumer runs on.
     */
    public record Consumer(
            @DefaultValue("3") int maxAttempts,
            @DefaultValue("100ms") Duration initialBackoff,
            @DefaultValue("2s") Duration maxBackoff,
            @DefaultValue("2") int workers) {
    }

    /**
     * The RabbitMQ transport.
     *
     * @param confirmTimeout How long a publish waits for the broker's confirm.
     * @param maxDeliveries How many times a message is delivered before it is dead-lettered.
     * @param requeueDelay How long a consumer waits before it hands a message it could not process back to the broker.
     * @param quorumQueues Whether the consumers' queues are quorum queues (replicated, with a delivery limit).
     */
    public record Rabbit(
            @DefaultValue("10s") Duration confirmTimeout,
            @DefaultValue("10") int maxDeliveries,
            @DefaultValue("1s") Duration requeueDelay,
            @DefaultValue("false") boolean quorumQueues) {
    }

    /**
     * The Kafka transport, its consumers and the Kafka listener container factories.
     *
     * @param sendTimeout How long a publish waits for the broker's acknowledgement.
     * @param createTopics Whether each consumer's topic and its dead-letter topic (topic.DLT) are
     *     created at start-up when missing.
     * @param partitions The partitions of a topic created at start-up.
     * @param replicationFactor The replication factor of a topic created at start-up.
     * @param maxDeliveries How many times a consumer's message is delivered before it is dead-lettered.
     * @param retryDelay How long a consumer waits before a message it could not process is delivered again.
     * @param groupInstanceId The static group membership (group.instance.id) of this application
     *     instance's Kafka consumers and OnlyOnce listener containers, so that one restarted after a
     *     kill gets its partitions back at once instead of after the group's session timeout: unique per
     *     instance and the same across its restarts; each consumer thread and container gets its own
     *     id from it. Empty: none.
     */
    public record Kafka(
            @DefaultValue("10s") Duration sendTimeout,
            @DefaultValue("true") boolean createTopics,
            @DefaultValue("3") int partitions,
            @DefaultValue("1") short replicationFactor,
            @DefaultValue("10") int maxDeliveries,
            @DefaultValue("1s") Duration retryDelay,
            @DefaultValue("") String groupInstanceId) {
    }
}
