package io.onlyonce.jdbc.internal;

import io.onlyonce.IdempotencyKey;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The fixed-size primary key of an idempotency row on MySQL and MariaDB: SHA-256 of the scope in
 * UTF-8, one 0x00 byte and the name, in SQL {@code UNHEX(SHA2(CONCAT(scope, CHAR(0), idem_key), 256))}.
 * Neither part can hold a NUL character, so distinct keys never share an input.
 */
public final class KeyHash {

    private KeyHash() {
    }

    /** The 32 bytes of the hash of {@code key}. */
    public static byte[] of(IdempotencyKey key) {
        MessageDigest sha256;
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
        sha256.update(key.scope().getBytes(StandardCharsets.UTF_8));
        sha256.update((byte) 0);
        sha256.update(key.name().getBytes(StandardCharsets.US_ASCII));
        return sha256.digest();
    }
}
