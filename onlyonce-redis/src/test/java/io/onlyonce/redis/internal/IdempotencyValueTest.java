package io.onlyonce.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.util.List;
import org.junit.jupiter.api.Test;

class IdempotencyValueTest {

    private static final IdempotencyKey KEY = new IdempotencyKey("s", "n");
    private static final Fingerprint FINGERPRINT = Fingerprint.of("a");
    private static final long EXPIRES_AT = 1_796_000_780_799L;

    @Test
    void inProgressValueIsStatusExpiryOwnerAndFingerprint() {
        OwnerToken owner = OwnerToken.random();
        byte[] value = IdempotencyValue.inProgress(EXPIRES_AT, owner, FINGERPRINT);
        assertThat(value).hasSize(IdempotencyValue.HEADER_LENGTH).hasSize(68);
        assertThat(new String(value, 0, 36, StandardCharsets.US_ASCII)).isEqualTo("P" + EXPIRES_AT + owner.value());
        assertThat(Arrays.copyOfRange(value, 36, 68)).isEqualTo(FINGERPRINT.bytes());

        IdempotencyRecord record = IdempotencyValue.decode(KEY, value);
        assertThat(record).isEqualTo(new IdempotencyRecord(KEY, RecordStatus.IN_PROGRESS, FINGERPRINT, owner,
                Instant.ofEpochMilli(EXPIRES_AT), null));
    }

    @Test
    void completedValueCarriesTheResponse() {
        OwnerToken owner = OwnerToken.random();
        StoredResponse response =
                new StoredResponse(201, List.of(new StoredResponse.Header("Location", "/x")), new byte[] {0, 1});
        byte[] header = IdempotencyValue.statusAndExpiry(IdempotencyValue.COMPLETED, 42);
        assertThat(new String(header, StandardCharsets.US_ASCII)).isEqualTo("C0000000000042");
        byte[] ownerAndFingerprint = Arrays.copyOfRange(IdempotencyValue.inProgress(1, owner, FINGERPRINT), 14, 68);
        byte[] encoded = StoredResponseCodec.encode(response);
        byte[] value = new byte[68 + encoded.length];
        System.arraycopy(header, 0, value, 0, 14);
        System.arraycopy(ownerAndFingerprint, 0, value, 14, 54);
        System.arraycopy(encoded, 0, value, 68, encoded.length);

        IdempotencyRecord record = IdempotencyValue.decode(KEY, value);
        assertThat(record.status()).isEqualTo(RecordStatus.COMPLETED);
        assertThat(record.expiresAt()).isEqualTo(Instant.ofEpochMilli(42));
        assertThat(record.owner()).isEqualTo(owner);
        assertThat(record.response()).isEqualTo(response);
    }

    @Test
    void expiryOutsideThirteenDigitsIsRefused() {
        assertThatThrownBy(() -> IdempotencyValue.statusAndExpiry(IdempotencyValue.IN_PROGRESS, -1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> IdempotencyValue.statusAndExpiry(IdempotencyValue.IN_PROGRESS, 10_000_000_000_000L))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void foreignValuesAreReportedAsCorrupt() {
        byte[] valid = IdempotencyValue.inProgress(EXPIRES_AT, OwnerToken.random(), FINGERPRINT);
        byte[] badStatus = valid.clone();
        badStatus[0] = 'X';
        byte[] badDigit = valid.clone();
        badDigit[3] = 'x';
        byte[] trailing = Arrays.copyOf(valid, valid.length + 1);
        for (byte[] value : List.of(new byte[10], badStatus, badDigit, trailing, "hello".getBytes(StandardCharsets.US_ASCII))) {
            assertThatThrownBy(() -> IdempotencyValue.decode(KEY, value)).isInstanceOf(IllegalStateException.class);
        }
    }
}
