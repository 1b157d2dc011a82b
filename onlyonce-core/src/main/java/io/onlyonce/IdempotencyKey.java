package io.onlyonce;

import io.onlyonce.support.StrictUtf8;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * The key under which a request is made idempotent: a {@code scope} (who and where, for example
 * principal and route template) and a {@code name} (the client's {@code Idempotency-Key}).
 *
 * <p>The name is 1 to 255 visible ASCII characters ({@code %x21-7E}). The scope is at most 512
 * characters of any script, without control characters, and well-formed UTF-16 (no unpaired
 * surrogate, which would encode to the same bytes as {@code ?}); it may be empty for a global
 * namespace. Both are checked here, so an invalid key can never reach a store.
 *
 * @param scope the namespace of the key; never shared between principals in the HTTP layer
 * @param name the client-chosen key
 */
public record IdempotencyKey(String scope, String name) {

    /** Longest accepted name. */
    public static final int MAX_NAME_LENGTH = 255;
    /** Longest accepted scope. */
    public static final int MAX_SCOPE_LENGTH = 512;

    public IdempotencyKey {
        if (scope == null) {
            throw new InvalidIdempotencyKeyException("scope must not be null");
        }
        if (scope.length() > MAX_SCOPE_LENGTH) {
            throw new InvalidIdempotencyKeyException("scope longer than " + MAX_SCOPE_LENGTH + " characters");
        }
        for (int i = 0; i < scope.length(); i++) {
            if (Character.isISOControl(scope.charAt(i))) {
                throw new InvalidIdempotencyKeyException("scope contains a control character");
            }
        }
        if (!StrictUtf8.isWellFormed(scope)) {
            throw new InvalidIdempotencyKeyException("scope is not well-formed UTF-16 (an unpaired surrogate)");
        }
        checkName(name);
    }

    /** Prefix of a {@linkplain #derivedName derived name} that is a hash. */
    public static final String HASHED_NAME_PREFIX = "sha256:";

    /**
     * A key name for any business value (a SpEL result, an order number, a message id): the value
     * itself when it is a valid name, otherwise {@code sha256:} and the base64url SHA-256 of its
     * UTF-8 bytes (50 visible ASCII characters). A value that is itself a valid name and starts with
     * the prefix is hashed too, so a hash never stands for two values.
     *
     * @throws InvalidIdempotencyKeyException when {@code value} is empty or holds an unpaired surrogate
     */
    public static String derivedName(String value) {
        if (value == null || value.isEmpty()) {
            throw new InvalidIdempotencyKeyException("key is empty");
        }
        if (isValidName(value) && !value.startsWith(HASHED_NAME_PREFIX)) {
            return value;
        }
        byte[] bytes;
        try {
            bytes = StrictUtf8.encode(value);
        } catch (IllegalArgumentException e) {
            throw new InvalidIdempotencyKeyException("key is not well-formed UTF-16 (an unpaired surrogate)");
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
            return HASHED_NAME_PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
    }

    /** Whether {@code name} is 1 to 255 visible ASCII characters. */
    public static boolean isValidName(String name) {
        if (name == null || name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x21 || c > 0x7E) {
                return false;
            }
        }
        return true;
    }

    /**
     * A key from a raw {@code Idempotency-Key} header value: an RFC 8941 sf-string
     * ({@code "abc"}, as the IETF draft requires) or a bare value (as Stripe's SDKs send).
     *
     * @throws InvalidIdempotencyKeyException when the value is malformed
     */
    public static IdempotencyKey fromHeader(String scope, String headerValue) {
        return new IdempotencyKey(scope, parseHeaderValue(headerValue));
    }

    /**
     * The key name carried by a raw header value. Surrounding spaces are ignored; a value that
     * starts with a double quote must be a complete sf-string whose only escapes are {@code \"}
     * and {@code \\}.
     *
     * @throws InvalidIdempotencyKeyException when the value is malformed
     */
    public static String parseHeaderValue(String headerValue) {
        if (headerValue == null) {
            throw new InvalidIdempotencyKeyException("key is missing");
        }
        String value = headerValue.strip();
        if (!value.startsWith("\"")) {
            checkName(value);
            return value;
        }
        StringBuilder name = new StringBuilder(value.length());
        int i = 1;
        boolean closed = false;
        while (i < value.length()) {
            char c = value.charAt(i);
            if (c == '\\') {
                if (i + 1 >= value.length()) {
                    throw new InvalidIdempotencyKeyException("dangling escape in sf-string");
                }
                char next = value.charAt(i + 1);
                if (next != '"' && next != '\\') {
                    throw new InvalidIdempotencyKeyException("invalid escape in sf-string");
                }
                name.append(next);
                i += 2;
            } else if (c == '"') {
                closed = true;
                i++;
                break;
            } else {
                name.append(c);
                i++;
            }
        }
        if (!closed || i != value.length()) {
            throw new InvalidIdempotencyKeyException("unterminated or trailing data after sf-string");
        }
        String result = name.toString();
        checkName(result);
        return result;
    }

    private static void checkName(String name) {
        if (name == null || name.isEmpty()) {
            throw new InvalidIdempotencyKeyException("key is empty");
        }
        if (name.length() > MAX_NAME_LENGTH) {
            throw new InvalidIdempotencyKeyException("key longer than " + MAX_NAME_LENGTH + " characters");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x21 || c > 0x7E) {
                throw new InvalidIdempotencyKeyException("key must be visible ASCII characters only");
            }
        }
    }
}
