package io.onlyonce.store;

/** What {@link IdempotencyStore#claim} found. */
public sealed interface ClaimResult {

    /**
     * The caller now holds the key.
     *
     * @param owner the fencing token to present on complete or release
     */
    record Claimed(OwnerToken owner) implements ClaimResult {
    }

    /**
     * Another request holds the key, or completed it; nothing was written.
     *
     * @param record the live record
     */
    record Existing(IdempotencyRecord record) implements ClaimResult {
    }
}
