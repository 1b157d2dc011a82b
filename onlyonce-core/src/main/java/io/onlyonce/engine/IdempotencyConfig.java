package io.onlyonce.engine;

import java.time.Duration;

/**
 * Immutable settings of one protected operation. Start from {@link #ofDefaults()} or
 * {@link #custom()}.
 *
 * @param retention how long a completed response is replayed (default 24 hours)
 * @param lease how long a holder may run before another request may take over (default 30 s)
 * @param responsePolicy which responses are stored (default {@link ResponsePolicy#DEFAULT})
 * @param releaseOnException whether an exception from the action releases the key (default true)
 * @param storeFailurePolicy what to do when the store is down (default STRICT)
 * @param unavailableRetryAfter the {@code Retry-After} suggested when STRICT refuses (default 5 s)
 */
public record IdempotencyConfig(
        Duration retention,
        Duration lease,
        ResponsePolicy responsePolicy,
        boolean releaseOnException,
        StoreFailurePolicy storeFailurePolicy,
        Duration unavailableRetryAfter) {

    public static final Duration DEFAULT_RETENTION = Duration.ofHours(24);
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

    public IdempotencyConfig {
        requirePositive(retention, "retention");
        requirePositive(lease, "lease");
        requirePositive(unavailableRetryAfter, "unavailableRetryAfter");
        if (responsePolicy == null || storeFailurePolicy == null) {
            throw new IllegalArgumentException("responsePolicy and storeFailurePolicy are required");
        }
    }

    private static void requirePositive(Duration value, String name) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive");
        }
        if (value.toMillis() < 1) {
            throw new IllegalArgumentException(name + " must be at least one millisecond");
        }
    }

    public static IdempotencyConfig ofDefaults() {
        return custom().build();
    }

    public static Builder custom() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        return new Builder().retention(retention).lease(lease).responsePolicy(responsePolicy)
                .releaseOnException(releaseOnException).storeFailurePolicy(storeFailurePolicy)
                .unavailableRetryAfter(unavailableRetryAfter);
    }

    public static final class Builder {
        private Duration retention = DEFAULT_RETENTION;
        private Duration lease = DEFAULT_LEASE;
        private ResponsePolicy responsePolicy = ResponsePolicy.DEFAULT;
        private boolean releaseOnException = true;
        private StoreFailurePolicy storeFailurePolicy = StoreFailurePolicy.STRICT;
        private Duration unavailableRetryAfter = Duration.ofSeconds(5);

        private Builder() {
        }

        public Builder retention(Duration retention) {
            this.retention = retention;
            return this;
        }

        public Builder lease(Duration lease) {
            this.lease = lease;
            return this;
        }

        public Builder responsePolicy(ResponsePolicy responsePolicy) {
            this.responsePolicy = responsePolicy;
            return this;
        }

        public Builder releaseOnException(boolean releaseOnException) {
            this.releaseOnException = releaseOnException;
            return this;
        }

        public Builder storeFailurePolicy(StoreFailurePolicy storeFailurePolicy) {
            this.storeFailurePolicy = storeFailurePolicy;
            return this;
        }

        public Builder unavailableRetryAfter(Duration unavailableRetryAfter) {
            this.unavailableRetryAfter = unavailableRetryAfter;
            return this;
        }

        public IdempotencyConfig build() {
            return new IdempotencyConfig(retention, lease, responsePolicy, releaseOnException,
                    storeFailurePolicy, unavailableRetryAfter);
        }
    }
}
