package io.onlyonce.redis.internal;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import io.onlyonce.redis.script.CorruptValueException;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.store.RecordStatus;
import io.onlyonce.store.StoredResponseCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The one binary string that holds an idempotency record: a status byte, the 22-character owner
 * token, the 32 raw fingerprint bytes and, for {@code D}, the {@link StoredResponseCodec} bytes of
 * the response. The status bytes are {@code R} (running: IN_PROGRESS), {@code D} (done: COMPLETED,
 * response follows) and {@code N} (COMPLETED, no response kept). The value holds no time: the key's
 * TTL is the lease, then the retention, counted down on Redis's clock. The Lua scripts read the
 * same offsets (1-based there): status 1, owner 2-23, fingerprint 24-55, response 56-.
 *
 * <p>The status bytes differ from those of the earlier layout ({@code P} and {@code C} followed by
 * an expiry in digits), so a value of that layout is recognised as foreign, never misread.
 */
public final class IdempotencyValue {

    /** Status byte of an IN_PROGRESS record ("running"). */
    public static final byte IN_PROGRESS = 'R';
    /** Status byte of a COMPLETED record whose response follows ("done"). */
    public static final byte COMPLETED = 'D';
    /** Status byte of a COMPLETED record whose response could not be kept ("no response"). */
    public static final byte COMPLETED_WITHOUT_RESPONSE = 'N';

    private static final int OWNER_OFFSET = 1;
    private static final int FINGERPRINT_OFFSET = OWNER_OFFSET + OwnerToken.LENGTH;
    /** Bytes before the response: status, owner and fingerprint. */
    public static final int HEADER_LENGTH = FINGERPRINT_OFFSET + Fingerprint.LENGTH;

    private IdempotencyValue() {
    }

    /** The value of a freshly claimed record. */
    public static byte[] inProgress(OwnerToken owner, Fingerprint fingerprint) {
        byte[] value = new byte[HEADER_LENGTH];
        value[0] = IN_PROGRESS;
        System.arraycopy(owner(owner), 0, value, OWNER_OFFSET, OwnerToken.LENGTH);
        System.arraycopy(fingerprint.bytes(), 0, value, FINGERPRINT_OFFSET, Fingerprint.LENGTH);
        return value;
    }

    /**
     * The owner token as the scripts compare it. A well-formed token is 22 ASCII characters; any
     * other text encodes to other bytes than every stored owner, so it is never mistaken for one.
     */
    public static byte[] owner(OwnerToken owner) {
        return owner.value().getBytes(StandardCharsets.UTF_8);
    }

    /** The status byte of a completed record: {@code D} with a response, {@code N} without. */
    public static byte[] completedStatus(@Nullable StoredResponse response) {
        return new byte[] {response == null ? COMPLETED_WITHOUT_RESPONSE : COMPLETED};
    }

    /** What follows owner and fingerprint in a completed record: the encoded response, or nothing. */
    public static byte[] completedTail(@Nullable StoredResponse response) {
        return response == null ? new byte[0] : StoredResponseCodec.encode(response);
    }

    /**
     * Reads a stored value back into a record.
     *
     * @param redisKey the key the value was read from, for the message of a foreign value
     * @param pttlMillis the key's {@code PTTL}, read in the same script as the value
     * @throws CorruptValueException when the value was not written by these stores
     */
    public static IdempotencyRecord decode(IdempotencyKey key, String redisKey, byte[] value, long pttlMillis) {
        if (value.length < HEADER_LENGTH) {
            throw new CorruptValueException(redisKey, "shorter than " + HEADER_LENGTH + " bytes", null);
        }
        byte status = value[0];
        if (status != IN_PROGRESS && status != COMPLETED && status != COMPLETED_WITHOUT_RESPONSE) {
            throw new CorruptValueException(redisKey, "unknown status byte 0x" + Integer.toHexString(status & 0xFF), null);
        }
        if (status != COMPLETED && value.length != HEADER_LENGTH) {
            throw new CorruptValueException(redisKey, "a record without response is " + HEADER_LENGTH + " bytes, not "
                    + value.length, null);
        }
        if (pttlMillis < 0) {
            throw new CorruptValueException(redisKey, "the key has no TTL", null);
        }
        for (int i = OWNER_OFFSET; i < FINGERPRINT_OFFSET; i++) {
            if (!isBase64Url(value[i])) {
                throw new CorruptValueException(redisKey, "the owner token is not base64url", null);
            }
        }
        OwnerToken owner = new OwnerToken(new String(value, OWNER_OFFSET, OwnerToken.LENGTH, StandardCharsets.US_ASCII));
        Fingerprint fingerprint = Fingerprint.of(Arrays.copyOfRange(value, FINGERPRINT_OFFSET, HEADER_LENGTH));
        StoredResponse response = null;
        if (status == COMPLETED) {
            try {
                response = StoredResponseCodec.decode(Arrays.copyOfRange(value, HEADER_LENGTH, value.length));
            } catch (IllegalArgumentException e) {
                throw new CorruptValueException(redisKey, "unreadable response", e);
            }
        }
        RecordStatus recordStatus = status == IN_PROGRESS ? RecordStatus.IN_PROGRESS : RecordStatus.COMPLETED;
        // PTTL is 0 in the last millisecond of a key's life: the key is still there, so is the record.
        Duration expiresIn = Duration.ofMillis(Math.max(1, pttlMillis));
        return new IdempotencyRecord(key, recordStatus, fingerprint, owner, expiresIn, response);
    }

    private static boolean isBase64Url(byte b) {
        return (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z') || (b >= '0' && b <= '9') || b == '-' || b == '_';
    }
}
