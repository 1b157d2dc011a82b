package io.onlyonce.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.util.List;
import org.junit.jupiter.api.Test;

class IdempotencyValueTest {

    private static final IdempotencyKey KEY = new IdempotencyKey("s", "n");
    private static final String REDIS_KEY = "oo:i:s:n";
    private static final Fingerprint FINGERPRINT = Fingerprint.of("a");

    /** A completed value as the complete script builds it: status, owner and fingerprint of the claim, tail. */
    private static byte[] completed(byte[] claimed, StoredResponse response) {
        byte[] status = IdempotencyValue.completedStatus(response);
        byte[] tail = IdempotencyValue.completedTail(response);
        byte[] value = Arrays.copyOf(claimed, 55 + tail.length);
        value[0] = status[0];
        System.arraycopy(tail, 0, value, 55, tail.length);
        return value;
    }

    @Test
    void inProgressValueIsStatusOwnerAndFingerprint() {
        OwnerToken owner = OwnerToken.random();
        byte[] value = IdempotencyValue.inProgress(owner, FINGERPRINT);
        assertThat(value).hasSize(IdempotencyValue.HEADER_LENGTH).hasSize(55);
        assertThat(new String(value, 0, 23, StandardCharsets.US_ASCII)).isEqualTo("R" + owner.value());
        assertThat(Arrays.copyOfRange(value, 23, 55)).isEqualTo(FINGERPRINT.bytes());

        IdempotencyRecord record = IdempotencyValue.decode(KEY, REDIS_KEY, value, 29_998);
        assertThat(record).isEqualTo(new IdempotencyRecord(KEY, RecordStatus.IN_PROGRESS, FINGERPRINT, owner,
                Duration.ofMillis(29_998), null));
    }

    @Test
    void completedValueCarriesTheResponse() {
        OwnerToken owner = OwnerToken.random();
        StoredResponse response =
                new StoredResponse(201, List.of(new StoredResponse.Header("Location", "/x")), new byte[] {0, 1});
        assertThat(IdempotencyValue.completedStatus(response)).containsExactly('D');
        assertThat(IdempotencyValue.completedTail(response)).isEqualTo(StoredResponseCodec.encode(response));
        byte[] value = completed(IdempotencyValue.inProgress(owner, FINGERPRINT), response);

        IdempotencyRecord record = IdempotencyValue.decode(KEY, REDIS_KEY, value, 86_400_000);
        assertThat(record).isEqualTo(new IdempotencyRecord(KEY, RecordStatus.COMPLETED, FINGERPRINT, owner,
                Duration.ofHours(24), response));
    }

    @Test
    void completedWithoutResponseIsItsOwnStatusAndNothingElse() {
        OwnerToken owner = OwnerToken.random();
        assertThat(IdempotencyValue.completedStatus(null)).containsExactly('N');
        assertThat(IdempotencyValue.completedTail(null)).isEmpty();
        byte[] value = IdempotencyValue.inProgress(owner, FINGERPRINT);
        value[0] = 'N';

        IdempotencyRecord record = IdempotencyValue.decode(KEY, REDIS_KEY, value, 5);
        assertThat(record).isEqualTo(new IdempotencyRecord(KEY, RecordStatus.COMPLETED, FINGERPRINT, owner,
                Duration.ofMillis(5), null));
        assertThat(record.hasResponse()).isFalse();
    }

    @Test
    void theLastMillisecondOfAKeyIsStillALiveRecord() {
        byte[] value = IdempotencyValue.inProgress(OwnerToken.random(), FINGERPRINT);
        assertThat(IdempotencyValue.decode(KEY, REDIS_KEY, value, 0).expiresIn()).isEqualTo(Duration.ofMillis(1));
    }

    @Test
    void foreignValuesAreReportedAsCorrupt() {
        OwnerToken owner = OwnerToken.random();
        byte[] valid = IdempotencyValue.inProgress(owner, FINGERPRINT);
        byte[] badStatus = valid.clone();
        badStatus[0] = 'X';
        byte[] badOwner = valid.clone();
        badOwner[5] = '.';
        byte[] trailing = Arrays.copyOf(valid, valid.length + 1);
        byte[] noResponse = valid.clone();
        noResponse[0] = 'D';
        byte[] badResponse = Arrays.copyOf(noResponse, 60);
        byte[] withoutResponseButTrailing = Arrays.copyOf(valid, 56);
        withoutResponseButTrailing[0] = 'N';
        // The layout before version 2 of the stores: P or C, expiresAt in 13 digits, owner, fingerprint, response.
        byte[] oldInProgress = concat(("P1796000780799" + owner.value()).getBytes(StandardCharsets.US_ASCII), FINGERPRINT.bytes());
        byte[] oldCompleted = concat(("C1796000780799" + owner.value()).getBytes(StandardCharsets.US_ASCII), FINGERPRINT.bytes(),
                StoredResponseCodec.encode(StoredResponse.of(200, new byte[0])));
        for (byte[] value : List.of(new byte[10], badStatus, badOwner, trailing, noResponse, badResponse,
                withoutResponseButTrailing, oldInProgress, oldCompleted, "hello".getBytes(StandardCharsets.US_ASCII))) {
            assertThatThrownBy(() -> IdempotencyValue.decode(KEY, REDIS_KEY, value, 1_000))
                    .isInstanceOf(CorruptValueException.class)
                    .hasMessageStartingWith("corrupt value under Redis key oo:i:s:n: ")
                    .hasMessageEndingWith("; not written by the OnlyOnce stores");
        }
    }

    @Test
    void aKeyWithoutTtlIsNotOurs() {
        byte[] valid = IdempotencyValue.inProgress(OwnerToken.random(), FINGERPRINT);
        assertThatThrownBy(() -> IdempotencyValue.decode(KEY, REDIS_KEY, valid, -1))
                .isInstanceOf(CorruptValueException.class)
                .hasMessageContaining("the key has no TTL");
    }

    private static byte[] concat(byte[]... parts) {
        int length = 0;
        for (byte[] part : parts) {
            length += part.length;
        }
        byte[] out = new byte[length];
        int at = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, out, at, part.length);
            at += part.length;
        }
        return out;
    }
}
