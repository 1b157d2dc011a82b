package io.onlyonce.store;

import io.onlyonce.internal.SecureRandoms;
import java.util.Base64;

/**
 * The fencing token of one claim: 128 random bits, base64url without padding (22 characters).
 * Complete and release present it; a holder that lost its lease holds a token that no longer
 * matches the record, so its late writes are refused.
 *
 * @param value the token text
 */
public record OwnerToken(String value) {

    /** Length of {@link #value()}. */
    public static final int LENGTH = 22;

    public OwnerToken {
        if (value == null || value.length() != LENGTH) {
            throw new IllegalArgumentException("an owner token is " + LENGTH + " characters");
        }
    }

    /** A new random token. */
    public static OwnerToken random() {
        byte[] bytes = new byte[16];
        SecureRandoms.nextBytes(bytes);
        return new OwnerToken(Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
    }
}
