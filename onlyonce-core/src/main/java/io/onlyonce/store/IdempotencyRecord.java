package io.onlyonce.store;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * One live record, as a store read it.
 *
 * @param key the key
 * @param status IN_PROGRESS or COMPLETED
 * @param fingerprint the fingerprint of the request that claimed the key
 * @param owner the holder's fencing token
 * @param expiresIn how much of the lease (IN_PROGRESS) or of the retention (COMPLETED) was left
 *     when the store read the record, measured on the store's own clock; always positive
 * @param response the stored response of a COMPLETED record; null while IN_PROGRESS, and null for
 *     a COMPLETED record whose response could not be kept (the work ran; its answer is lost)
 */
public record IdempotencyRecord(
        IdempotencyKey key,
        RecordStatus status,
        Fingerprint fingerprint,
        OwnerToken owner,
        Duration expiresIn,
        @Nullable StoredResponse response) {

    public IdempotencyRecord {
        if (key == null || status == null || fingerprint == null || owner == null || expiresIn == null) {
            throw new IllegalArgumentException("key, status, fingerprint, owner and expiresIn are required");
        }
        if (status == RecordStatus.IN_PROGRESS && response != null) {
            throw new IllegalArgumentException("a record in progress has no response");
        }
        if (expiresIn.isNegative() || expiresIn.isZero()) {
            throw new IllegalArgumentException("a live record expires in the future");
        }
    }

    /** Whether the work ran and its response is here to replay. */
    public boolean hasResponse() {
        return response != null;
    }
}
