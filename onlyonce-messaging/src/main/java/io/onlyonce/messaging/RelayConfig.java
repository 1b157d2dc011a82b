package io.onlyonce.messaging;

import io.onlyonce.messaging.internal.Backoff;
import java.time.Duration;

/**
 * Immutable settings of an {@link OutboxRelay}. Start from {@link #ofDefaults()} or
 * {@link #custom()}.
 *
 * @param batchSize the most rows one poll claims, 1 to 1,000 (default 100)
 * @param pollInterval how long the relay sleeps when it found nothing due, unless
 *     {@link OutboxRelay#wakeUp() woken} (default 1 s)
 * @param lease how long a claimed row stays SENDING before another relay may claim it again
 *     (the sweep of a relay that died mid-send); longer than {@code publishTimeout} (default 60 s)
 * @param publishTimeout how long a poll waits for the broker's confirms before it counts the missing
 *     ones as failed attempts; shorter than {@code lease}, so that in the normal path no row is
 *     claimed again while its publish may still be confirmed (default 30 s)
 * @param maxAttempts publish attempts before a message is FAILED, at least 1 (default 10)
 * @param initialBackoff the wait before the second attempt (default 1 s)
 * @param backoffMultiplier the factor by which each wait grows, at least 1 (default 2)
 * @param backoffJitter the random spread of each wait, as a fraction of it, in [0, 1) (default 0.5)
 * @param maxBackoff the longest wait (default 10 min)
 * @param pipelineDepth how many claimed batches the {@link OutboxRelay#start() running} relay keeps in
 *     flight at once, 1 to {@value #MAX_PIPELINE_DEPTH}: while the broker confirms one batch, the
 *     relay claims and publishes the next, so the database's work and the broker's overlap (default
 *     2; 1 claims only once the previous batch is marked)
 * @param deleteSent whether a confirmed message's row is deleted instead of marked SUCCESS (default
 *     false): the cheapest mark, about a tenth of the write-ahead log of an update on PostgreSQL,
 *     and no purge needed; the outbox then holds only the messages still to send and the FAILED
 *     ones ({@link OutboxRelay#find} finds a sent message no more, {@link OutboxListener#onSent}
 *     is still told). Recording a message id again once its row is deleted records and publishes it
 *     again: the consumers' inbox drops the duplicate, the outbox no longer does
 */
public record RelayConfig(int batchSize, Duration pollInterval, Duration lease, Duration publishTimeout, int maxAttempts,
        Duration initialBackoff, double backoffMultiplier, double backoffJitter, Duration maxBackoff, int pipelineDepth,
        boolean deleteSent) {

    /** The largest {@link #batchSize()}: the claim binds one parameter per row. */
    public static final int MAX_BATCH_SIZE = 1_000;
    /** Default {@link #batchSize()}. */
    public static final int DEFAULT_BATCH_SIZE = 100;
    /** Default {@link #pollInterval()}. */
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);
    /** Default {@link #lease()}. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(60);
    /** Default {@link #publishTimeout()}. */
    public static final Duration DEFAULT_PUBLISH_TIMEOUT = Duration.ofSeconds(30);
    /** Default {@link #maxAttempts()}. */
    public static final int DEFAULT_MAX_ATTEMPTS = 10;
    /** Default {@link #initialBackoff()}. */
    public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofSeconds(1);
    /** Default {@link #backoffMultiplier()}. */
    public static final double DEFAULT_BACKOFF_MULTIPLIER = 2.0;
    /** Default {@link #backoffJitter()}. */
    public static final double DEFAULT_BACKOFF_JITTER = 0.5;
    /** Default {@link #maxBackoff()}. */
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofMinutes(10);
    /** The largest {@link #pipelineDepth()}. */
    public static final int MAX_PIPELINE_DEPTH = 16;
    /** Default {@link #pipelineDepth()}. */
    public static final int DEFAULT_PIPELINE_DEPTH = 2;

    /**
     * @throws IllegalArgumentException when a value is out of range, or the publish timeout is not
     *     shorter than the lease
     */
    public RelayConfig {
        if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
            throw new IllegalArgumentException("batchSize must be 1 to " + MAX_BATCH_SIZE);
        }
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1");
        }
        if (pipelineDepth < 1 || pipelineDepth > MAX_PIPELINE_DEPTH) {
            throw new IllegalArgumentException("pipelineDepth must be 1 to " + MAX_PIPELINE_DEPTH);
        }
        requireMillis("pollInterval", pollInterval);
        requireMillis("lease", lease);
        requireMillis("publishTimeout", publishTimeout);
        if (publishTimeout.compareTo(lease) >= 0) {
            throw new IllegalArgumentException("publishTimeout must be shorter than the lease");
        }
        Backoff.check(initialBackoff, backoffMultiplier, backoffJitter, maxBackoff);
    }

    private static void requireMillis(String what, Duration value) {
        if (value == null || value.toMillis() < 1) {
            throw new IllegalArgumentException(what + " must be at least 1 ms");
        }
    }

    /** The defaults. */
    public static RelayConfig ofDefaults() {
        return custom().build();
    }

    /** A builder starting from the defaults. */
    public static Builder custom() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        return new Builder().batchSize(batchSize).pollInterval(pollInterval).lease(lease).publishTimeout(publishTimeout)
                .maxAttempts(maxAttempts).initialBackoff(initialBackoff).backoffMultiplier(backoffMultiplier)
                .backoffJitter(backoffJitter).maxBackoff(maxBackoff).pipelineDepth(pipelineDepth)
                .deleteSent(deleteSent);
    }

    /** Builds a {@link RelayConfig}; every value starts at its default. */
    public static final class Builder {
        private int batchSize = DEFAULT_BATCH_SIZE;
        private Duration pollInterval = DEFAULT_POLL_INTERVAL;
        private Duration lease = DEFAULT_LEASE;
        private Duration publishTimeout = DEFAULT_PUBLISH_TIMEOUT;
        private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
        private Duration initialBackoff = DEFAULT_INITIAL_BACKOFF;
        private double backoffMultiplier = DEFAULT_BACKOFF_MULTIPLIER;
        private double backoffJitter = DEFAULT_BACKOFF_JITTER;
        private Duration maxBackoff = DEFAULT_MAX_BACKOFF;
        private int pipelineDepth = DEFAULT_PIPELINE_DEPTH;
        private boolean deleteSent;

        private Builder() {
        }

        /** See {@link RelayConfig#batchSize()}. */
        public Builder batchSize(int batchSize) {
            this.batchSize = batchSize;
            return this;
        }

        /** See {@link RelayConfig#pollInterval()}. */
        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
            return this;
        }

        /** See {@link RelayConfig#lease()}. */
        public Builder lease(Duration lease) {
            this.lease = lease;
            return this;
        }

        /** See {@link RelayConfig#publishTimeout()}. */
        public Builder publishTimeout(Duration publishTimeout) {
            this.publishTimeout = publishTimeout;
            return this;
        }

        /** See {@link RelayConfig#maxAttempts()}. */
        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        /** See {@link RelayConfig#initialBackoff()}. */
        public Builder initialBackoff(Duration initialBackoff) {
            this.initialBackoff = initialBackoff;
            return this;
        }

        /** See {@link RelayConfig#backoffMultiplier()}. */
        public Builder backoffMultiplier(double backoffMultiplier) {
            this.backoffMultiplier = backoffMultiplier;
            return this;
        }

        /** See {@link RelayConfig#backoffJitter()}. */
        public Builder backoffJitter(double backoffJitter) {
            this.backoffJitter = backoffJitter;
            return this;
        }

        /** See {@link RelayConfig#maxBackoff()}. */
        public Builder maxBackoff(Duration maxBackoff) {
            this.maxBackoff = maxBackoff;
            return this;
        }

        /** See {@link RelayConfig#pipelineDepth()}. */
        public Builder pipelineDepth(int pipelineDepth) {
            this.pipelineDepth = pipelineDepth;
            return this;
        }

        /** See {@link RelayConfig#deleteSent()}. */
        public Builder deleteSent(boolean deleteSent) {
            this.deleteSent = deleteSent;
            return this;
        }

        /** The configuration; see the record's constructor for what it refuses. */
        public RelayConfig build() {
            return new RelayConfig(batchSize, pollInterval, lease, publishTimeout, maxAttempts, initialBackoff,
                    backoffMultiplier, backoffJitter, maxBackoff, pipelineDepth, deleteSent);
        }
    }
}
