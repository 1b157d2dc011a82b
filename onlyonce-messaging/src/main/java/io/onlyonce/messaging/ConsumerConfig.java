package io.onlyonce.messaging;

import io.onlyonce.messaging.internal.Backoff;
import java.time.Duration;

/**
 * Immutable settings of an idempotent consumer. Start from {@link #ofDefaults()} or
 * {@link #custom()}.
 *
 * <p>A delivery whose side effect fails is tried again in process, on the same thread, after an
 * exponential backoff with jitter and a cap, up to {@code maxAttempts} attempts in all; then it is
 * dead-lettered, so a poison message never loops. A {@link PermanentMessageFailure} dead-letters at
 * once. A collision with a concurrent transaction (serialization failure, deadlock, lock wait
 * timeout) is tried again at once and does not count as an attempt.
 *
 * @param maxAttempts attempts of the side effect per delivery before it is dead-lettered, at least 1
 *     (default 3)
 * @param initialBackoff the wait after the first failed attempt (default 100 ms)
 * @param backoffMultiplier the factor by which each wait grows, at least 1 (default 2)
 * @param backoffJitter the random spread of each wait, as a fraction of it, in [0, 1) (default 0.5)
 * @param maxBackoff the longest wait (default 2 s)
 * @param lease {@link StoreIdempotentConsumer} only: how long a delivery holds the message's key
 *     while its side effect runs; a delivery that crashed blocks the message this long (default 60 s)
 * @param retention {@link StoreIdempotentConsumer} only: how long a processed message's key is
 *     kept, so that redeliveries within it are dropped (default 24 h). The inbox table keeps its
 *     rows until {@link JdbcInbox#purge}.
 */
public record ConsumerConfig(int maxAttempts, Duration initialBackoff, double backoffMultiplier, double backoffJitter,
        Duration maxBackoff, Duration lease, Duration retention) {

    /** Default {@link #maxAttempts()}. */
    public static final int DEFAULT_MAX_ATTEMPTS = 3;
    /** Default {@link #initialBackoff()}. */
    public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofMillis(100);
    /** Default {@link #backoffMultiplier()}. */
    public static final double DEFAULT_BACKOFF_MULTIPLIER = 2.0;
    /** Default {@link #backoffJitter()}. */
    public static final double DEFAULT_BACKOFF_JITTER = 0.5;
    /** Default {@link #maxBackoff()}. */
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(2);
    /** Default {@link #lease()}. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(60);
    /** Default {@link #retention()}. */
    public static final Duration DEFAULT_RETENTION = Duration.ofHours(24);

    /**
     * @throws IllegalArgumentException when a value is out of range
     */
    public ConsumerConfig {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1");
        }
        Backoff.check(initialBackoff, backoffMultiplier, backoffJitter, maxBackoff);
        if (lease == null || lease.toMillis() < 1 || retention == null || retention.toMillis() < 1) {
            throw new IllegalArgumentException("lease and retention must be at least 1 ms");
        }
    }

    /** The defaults. */
    public static ConsumerConfig ofDefaults() {
        return custom().build();
    }

    /** A builder starting from the defaults. */
    public static Builder custom() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        return new Builder().maxAttempts(maxAttempts).initialBackoff(initialBackoff).backoffMultiplier(backoffMultiplier)
                .backoffJitter(backoffJitter).maxBackoff(maxBackoff).lease(lease).retention(retention);
    }

    /** Builds a {@link ConsumerConfig}; every value starts at its default. */
    public static final class Builder {
        private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
        private Duration initialBackoff = DEFAULT_INITIAL_BACKOFF;
        private double backoffMultiplier = DEFAULT_BACKOFF_MULTIPLIER;
        private double backoffJitter = DEFAULT_BACKOFF_JITTER;
        private Duration maxBackoff = DEFAULT_MAX_BACKOFF;
        private Duration lease = DEFAULT_LEASE;
        private Duration retention = DEFAULT_RETENTION;

        private Builder() {
        }

        /** See {@link ConsumerConfig#maxAttempts()}. */
        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        /** See {@link ConsumerConfig#initialBackoff()}. */
        public Builder initialBackoff(Duration initialBackoff) {
            this.initialBackoff = initialBackoff;
            return this;
        }

        /** See {@link ConsumerConfig#backoffMultiplier()}. */
        public Builder backoffMultiplier(double backoffMultiplier) {
            this.backoffMultiplier = backoffMultiplier;
            return this;
        }

        /** See {@link ConsumerConfig#backoffJitter()}. */
        public Builder backoffJitter(double backoffJitter) {
            this.backoffJitter = backoffJitter;
            return this;
        }

        /** See {@link ConsumerConfig#maxBackoff()}. */
        public Builder maxBackoff(Duration maxBackoff) {
            this.maxBackoff = maxBackoff;
            return this;
        }

        /** See {@link ConsumerConfig#lease()}. */
        public Builder lease(Duration lease) {
            this.lease = lease;
            return this;
        }

        /** See {@link ConsumerConfig#retention()}. */
        public Builder retention(Duration retention) {
            this.retention = retention;
            return this;
        }

        /** The configuration; see the record's constructor for what it refuses. */
        public ConsumerConfig build() {
            return new ConsumerConfig(maxAttempts, initialBackoff, backoffMultiplier, backoffJitter, maxBackoff, lease,
                    retention);
        }
    }
}
