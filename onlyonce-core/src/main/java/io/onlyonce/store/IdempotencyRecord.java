package io.onlyonce.store;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * One stored record.
 *
 * @param key the key
 * @param status IN_PROGRESS or COMPLETED (never EXPIRED, which is derived)
 * @param fingerprint the fingerprint of the request that claimed the key
 * @param owner the holder's fencing token
 * @param expiresAt end of the lease (IN_PROGRESS) or of the retention (COMPLETED)
 * @param response the stored response; present exactly when COMPLETED
 */
public record IdempotencyRecord(
        IdempotencyKey key,
        RecordStatus status,
        Fingerprint fingerprint,
        OwnerToken owner,
        Instant expiresAt,
        @Nullable StoredResponse response) {

    public IdempotencyRecord {
        if (status == RecordStatus.EXPIRED) {
            throw new IllegalArgumentException("EXPIRED is derived, never stored");
        }
        if ((status == RecordStatus.COMPLETED) != (response != null)) {
            throw new IllegalArgumentException("a response is present exactly when COMPLETED");
        }
    }

    /** The status as seen at {@code now}: EXPIRED once {@code now >= expiresAt}. */
    public RecordStatus statusAt(Instant now) {
        return now.isBefore(expiresAt) ? status : RecordStatus.EXPIRED;
    }
}
