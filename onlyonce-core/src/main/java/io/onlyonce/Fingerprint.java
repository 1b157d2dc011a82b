package io.onlyonce;

import io.onlyonce.internal.JsonCanonicalizer;
import io.onlyonce.support.StrictUtf8;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A SHA-256 digest of what makes two requests "the same request". Build one with
 * {@link #builder()}; every part is length-prefixed, so {@code ("ab","c")} and {@code ("a","bc")}
 * never collide. JSON bodies are canonicalised first (field order and whitespace do not count).
 */
public final class Fingerprint {

    /** Digest length in bytes. */
    public static final int LENGTH = 32;

    private final byte[] digest;

    private Fingerprint(byte[] digest) {
        this.digest = digest;
    }

    /** A fingerprint from its 32 raw bytes. */
    public static Fingerprint of(byte[] digest) {
        if (digest == null || digest.length != LENGTH) {
            throw new IllegalArgumentException("a fingerprint is " + LENGTH + " bytes");
        }
        return new Fingerprint(digest.clone());
    }

    /** A fingerprint from its 64 lower- or upper-case hex digits. */
    public static Fingerprint ofHex(String hex) {
        if (hex == null || hex.length() != LENGTH * 2) {
            throw new IllegalArgumentException("a fingerprint is " + LENGTH * 2 + " hex digits");
        }
        return new Fingerprint(HexFormat.of().parseHex(hex));
    }

    /** The fingerprint of the given parts, in order. */
    public static Fingerprint of(String... parts) {
        Builder builder = builder();
        for (String part : parts) {
            builder.add(part);
        }
        return builder.build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The 32 raw bytes (a copy). */
    public byte[] bytes() {
        return digest.clone();
    }

    /** 64 lower-case hex digits. */
    public String hex() {
        return HexFormat.of().formatHex(digest);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Fingerprint that && MessageDigest.isEqual(digest, that.digest);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(digest);
    }

    @Override
    public String toString() {
        return "Fingerprint[" + hex() + "]";
    }

    /** Accumulates parts into a SHA-256 digest. Not thread-safe; one builder per request. */
    public static final class Builder {

        private final MessageDigest sha256;

        private Builder() {
            try {
                sha256 = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 is required by every Java platform", e);
            }
        }

        /**
         * Adds a text part: its UTF-8 bytes, or, for text that is not well-formed UTF-16 (an unpaired
         * surrogate, which UTF-8 would turn into {@code ?}), a 0xFF byte and its UTF-16 code units,
         * so that two different texts never add the same bytes.
         */
        public Builder add(String part) {
            if (StrictUtf8.isWellFormed(part)) {
                return add(part.getBytes(StandardCharsets.UTF_8));
            }
            byte[] marked = new byte[1 + 2 * part.length()];
            marked[0] = (byte) 0xFF;
            for (int i = 0; i < part.length(); i++) {
                char c = part.charAt(i);
                marked[1 + 2 * i] = (byte) (c >>> 8);
                marked[2 + 2 * i] = (byte) c;
            }
            return add(marked);
        }

        /** Adds a binary part. */
        public Builder add(byte[] part) {
            int n = part.length;
            sha256.update(new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n});
            sha256.update(part);
            return this;
        }

        /**
         * Adds a body that is JSON: canonicalised (keys sorted at every level, insignificant
         * whitespace removed) before it is hashed. A body that does not parse as JSON is added as
         * it is.
         */
        public Builder addJson(byte[] body) {
            return add(JsonCanonicalizer.canonicalizeOrSelf(body));
        }

        public Fingerprint build() {
            return new Fingerprint(sha256.digest());
        }
    }
}
