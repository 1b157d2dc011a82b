package io.onlyonce.token;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.internal.SecureRandoms;
import io.onlyonce.support.StrictUtf8;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Issues, verifies and consumes one-time tokens.
 *
 * <p>A token is {@code base64url(version | id | expiry | binding | mac)}: one version byte, 16
 * random bytes (the id), the expiry in epoch seconds (8 bytes), a 16-byte binding tag
 * {@code HMAC(secret, "bind" | principal | scope)} and {@code HMAC-SHA256(secret, everything
 * before)}. Verification needs no store call and compares in constant time; a token signed by us
 * but for someone else is told apart from a forged one; only the canonical text of a token is
 * accepted (the unused bits of its last base64url character must be zero), so one token has exactly
 * one spelling. Consumption is one atomic store step, and the store alone decides, on its own clock,
 * whether a token is still alive: the signed expiry is only the issuer's statement to the client, so
 * instances whose clocks differ agree on every token.
 */
public final class TokenService {

    private static final byte VERSION = 1;
    private static final int ID_BYTES = 16;
    private static final int BINDING_BYTES = 16;
    private static final int MAC_BYTES = 32;
    private static final int PAYLOAD_BYTES = 1 + ID_BYTES + 8 + BINDING_BYTES;
    private static final int TOKEN_BYTES = PAYLOAD_BYTES + MAC_BYTES;
    /** Length of an issued token's text. */
    public static final int TOKEN_LENGTH = (TOKEN_BYTES * 4 + 2) / 3;

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    private final TokenStore store;
    private final TokenConfig config;
    private final Clock clock;

    public TokenService(TokenStore store, TokenConfig config, Clock clock) {
        this.store = store;
        this.config = config;
        this.clock = clock;
    }

    /**
     * Issues a token for {@code principal} and {@code scope} and saves it as CREATED.
     *
     * @throws IllegalArgumentException when the principal or the scope is not well-formed text
     * @throws StoreUnavailableException when the store is down, or full and refuses the token
     */
    public IssuedToken issue(String principal, String scope) {
        byte[] binding = binding(config.secrets().get(0), principal, scope);
        Instant now = clock.instant();
        Instant expiresAt = Instant.ofEpochSecond(now.plus(config.ttl()).getEpochSecond());
        byte[] id = new byte[ID_BYTES];
        SecureRandoms.nextBytes(id);
        byte[] secret = config.secrets().get(0);
        ByteBuffer buffer = ByteBuffer.allocate(TOKEN_BYTES);
        buffer.put(VERSION).put(id).putLong(expiresAt.getEpochSecond()).put(binding);
        buffer.put(mac(secret, buffer.array(), PAYLOAD_BYTES));
        OneTimeToken token = new OneTimeToken(ENCODER.encodeToString(id), expiresAt);
        if (!store.save(token, config.ttl())) {
            throw new StoreUnavailableException("token save", new IllegalStateException("the token store is full"));
        }
        return new IssuedToken(ENCODER.encodeToString(buffer.array()), expiresAt);
    }

    /** Checks form, signature and binding, in that order, without calling the store. */
    public TokenVerification verify(String value, String principal, String scope) {
        if (value == null || value.length() != TOKEN_LENGTH) {
            return new TokenVerification.Malformed();
        }
        byte[] raw;
        try {
            raw = DECODER.decode(value);
        } catch (IllegalArgumentException e) {
            return new TokenVerification.Malformed();
        }
        if (raw.length != TOKEN_BYTES || raw[0] != VERSION || !ENCODER.encodeToString(raw).equals(value)) {
            return new TokenVerification.Malformed();
        }
        byte[] presentedMac = new byte[MAC_BYTES];
        System.arraycopy(raw, PAYLOAD_BYTES, presentedMac, 0, MAC_BYTES);
        byte[] signer = null;
        for (byte[] secret : config.secrets()) {
            if (MessageDigest.isEqual(mac(secret, raw, PAYLOAD_BYTES), presentedMac)) {
                signer = secret;
                break;
            }
        }
        if (signer == null) {
            return new TokenVerification.Forged();
        }
        ByteBuffer buffer = ByteBuffer.wrap(raw, 1, PAYLOAD_BYTES - 1);
        byte[] id = new byte[ID_BYTES];
        buffer.get(id);
        long expirySeconds = buffer.getLong();
        byte[] presentedBinding = new byte[BINDING_BYTES];
        buffer.get(presentedBinding);
        byte[] expected;
        try {
            expected = binding(signer, principal, scope);
        } catch (IllegalArgumentException malformedText) {
            return new TokenVerification.WrongBinding();
        }
        if (!MessageDigest.isEqual(expected, presentedBinding)) {
            return new TokenVerification.WrongBinding();
        }
        return new TokenVerification.Valid(new OneTimeToken(ENCODER.encodeToString(id), Instant.ofEpochSecond(expirySeconds)));
    }

    /**
     * Consumes a verified token: {@code true} for exactly one caller, {@code false} when it was
     * already consumed, never issued, or has expired.
     */
    public boolean consume(OneTimeToken token) {
        return store.consume(token);
    }

    /**
     * Whether {@code token} has passed the expiry it was signed with, on this service's clock: what
     * a caller is told when the store refused a token that no request ran with (it expired unused,
     * rather than being submitted twice). The store's refusal, not this, decides whether it may be used.
     */
    public boolean expired(OneTimeToken token) {
        return !clock.instant().isBefore(token.expiresAt());
    }

    /** Makes a consumed, unexpired token usable again (opt-in restore on failure). */
    public boolean restore(OneTimeToken token) {
        return store.restore(token);
    }

    private static byte[] binding(byte[] secret, String principal, String scope) {
        byte[] p = StrictUtf8.encode(principal);
        byte[] s = StrictUtf8.encode(scope);
        ByteBuffer input = ByteBuffer.allocate(4 + 4 + p.length + 4 + s.length);
        input.put("bind".getBytes(StandardCharsets.US_ASCII)).putInt(p.length).put(p).putInt(s.length).put(s);
        byte[] full = mac(secret, input.array(), input.capacity());
        byte[] tag = new byte[BINDING_BYTES];
        System.arraycopy(full, 0, tag, 0, BINDING_BYTES);
        return tag;
    }

    private static byte[] mac(byte[] secret, byte[] data, int length) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update(data, 0, length);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is required by every Java platform", e);
        }
    }
}
