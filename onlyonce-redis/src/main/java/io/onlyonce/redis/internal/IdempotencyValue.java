package io.onlyonce.redis.internal;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.store.RecordStatus;
import io.onlyonce.store.StoredResponseCodec;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The one binary string that holds an idempotency record: status byte ({@code P} in progress,
 * {@code C} completed), {@code expiresAt} as 13 zero-padded ASCII digits of epoch millis, the
 * 22-character owner token, the 32 raw fingerprint bytes, and for {@code C} the
 * {@link StoredResponseCodec} bytes of the response. The Lua scripts read the same offsets
 * (1-based there): status 1, expiresAt 2-14, owner 15-36, fingerprint 37-68, response 69-.
 */
public final class IdempotencyValue {

    /** Status byte of an IN_PROGRESS record. */
    public static final byte IN_PROGRESS = 'P';
    /** Status byte of a COMPLETED record. */
    public static final byte COMPLETED = 'C';

    private static final int EXPIRES_AT_DIGITS = 13;
    private static final long MAX_EXPIRES_AT = 9_999_999_999_999L;
    private static final int EXPIRES_AT_OFFSET = 1;
    private static final int OWNER_OFFSET = EXPIRES_AT_OFFSET + EXPIRES_AT_DIGITS;
    private static final int FINGERPRINT_OFFSET = OWNER_OFFSET + OwnerToken.LENGTH;
    /** Bytes before the response: status, expiresAt, owner and fingerprint. */
    public static final int HEADER_LENGTH = FINGERPRINT_OFFSET + Fingerprint.LENGTH;

    private IdempotencyValue() {
    }

    /** The value of a freshly claimed record. */
    public static byte[] inProgress(long expiresAtMillis, OwnerToken owner, Fingerprint fingerprint) {
        byte[] value = new byte[HEADER_LENGTH];
        System.arraycopy(statusAndExpiry(IN_PROGRESS, expiresAtMillis), 0, value, 0, OWNER_OFFSET);
        System.arraycopy(owner(owner), 0, value, OWNER_OFFSET, OwnerToken.LENGTH);
        System.arraycopy(fingerprint.bytes(), 0, value, FINGERPRINT_OFFSET, Fingerprint.LENGTH);
        return value;
    }

    /**
     * The first 14 bytes of a value: the status byte and {@code expiresAt}. The complete script puts
     * owner and fingerprint of the stored record and then the response after them.
     */
    public static byte[] statusAndExpiry(byte status, long expiresAtMillis) {
        if (expiresAtMillis < 0 || expiresAtMillis > MAX_EXPIRES_AT) {
            throw new IllegalArgumentException("expiresAt out of range: " + expiresAtMillis);
        }
        String digits = Long.toString(expiresAtMillis);
        String text = (char) status + "0".repeat(EXPIRES_AT_DIGITS - digits.length()) + digits;
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * The owner token as the scripts compare it. A well-formed token is 22 ASCII characters; any
     * other text encodes to other bytes than every stored owner, so it is never mistaken for one.
     */
    public static byte[] owner(OwnerToken owner) {
        return owner.value().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Reads a stored value back into a record.
     *
     * @throws IllegalStateException when the value was not written by these stores
     */
    public static IdempotencyRecord decode(IdempotencyKey key, byte[] value) {
        if (value.length < HEADER_LENGTH) {
            throw corrupt(key, "shorter than " + HEADER_LENGTH + " bytes");
        }
        byte status = value[0];
        if (status != IN_PROGRESS && status != COMPLETED) {
            throw corrupt(key, "unknown status byte " + status);
        }
        long expiresAt = 0;
        for (int i = EXPIRES_AT_OFFSET; i < OWNER_OFFSET; i++) {
            int digit = value[i] - '0';
            if (digit < 0 || digit > 9) {
                throw corrupt(key, "expiresAt is not 13 digits");
            }
            expiresAt = expiresAt * 10 + digit;
        }
        OwnerToken owner = new OwnerToken(new String(value, OWNER_OFFSET, OwnerToken.LENGTH, StandardCharsets.US_ASCII));
        Fingerprint fingerprint = Fingerprint.of(Arrays.copyOfRange(value, FINGERPRINT_OFFSET, HEADER_LENGTH));
        @Nullable StoredResponse response = null;
        if (status == COMPLETED) {
            try {
                response = StoredResponseCodec.decode(Arrays.copyOfRange(value, HEADER_LENGTH, value.length));
            } catch (IllegalArgumentException e) {
                throw corrupt(key, "unreadable response", e);
            }
        } else if (value.length != HEADER_LENGTH) {
            throw corrupt(key, "an in-progress record carries a response");
        }
        RecordStatus recordStatus = status == COMPLETED ? RecordStatus.COMPLETED : RecordStatus.IN_PROGRESS;
        return new IdempotencyRecord(key, recordStatus, fingerprint, owner, Instant.ofEpochMilli(expiresAt), response);
    }

    private static IllegalStateException corrupt(IdempotencyKey key, String reason) {
        return corrupt(key, reason, null);
    }

    private static IllegalStateException corrupt(IdempotencyKey key, String reason, @Nullable Throwable cause) {
        return new IllegalStateException("corrupt idempotency record for " + key + ": " + reason, cause);
    }
}
