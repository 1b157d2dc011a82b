package io.onlyonce.token;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Immutable settings of a {@link TokenService}.
 *
 * @param ttl how long an issued token stays usable (default 10 minutes)
 * @param secrets HMAC-SHA256 secrets, at least 32 bytes each; the first signs, all verify (rotation)
 */
public record TokenConfig(Duration ttl, List<byte[]> secrets) {

    /** Default token life. */
    public static final Duration DEFAULT_TTL = Duration.ofMinutes(10);
    /** Shortest accepted secret. */
    public static final int MIN_SECRET_BYTES = 32;

    public TokenConfig {
        if (ttl == null || ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be positive");
        }
        if (secrets == null || secrets.isEmpty()) {
            throw new IllegalArgumentException("at least one secret is required");
        }
        List<byte[]> copy = new ArrayList<>(secrets.size());
        for (byte[] secret : secrets) {
            if (secret == null || secret.length < MIN_SECRET_BYTES) {
                throw new IllegalArgumentException("a secret is at least " + MIN_SECRET_BYTES + " bytes");
            }
            copy.add(secret.clone());
        }
        secrets = List.copyOf(copy);
    }

    /** Default TTL, one signing secret. */
    public static TokenConfig of(byte[] secret) {
        return new TokenConfig(DEFAULT_TTL, List.of(secret));
    }

    /** A copy with another TTL. */
    public TokenConfig withTtl(Duration newTtl) {
        return new TokenConfig(newTtl, secrets);
    }
}
