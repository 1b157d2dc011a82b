package io.onlyonce.example.seckill.order;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Business ids, the idempotency ids clients make for orders:
 * {@code u{userId}_{epochMillis}_{6 letters or digits}}, for example {@code u42_1767225600000_a1B2c3},
 * the user id written as it is (no leading zeros), so that one id has exactly one spelling.
 * At most 41 characters (19-digit user id, 13-digit milliseconds), so {@code VARCHAR(64)} holds
 * every valid one. Flash-sale orders use the one-time token instead: {@code tk_} and the SHA-256
 * of the token (46 characters).
 */
public final class BusinessIds {

    /** Canonical: the user id without leading zeros ({@code u0042_...} is not user 42's), never 0. */
    private static final Pattern FORMAT = Pattern.compile("u([1-9][0-9]{0,18})_([0-9]{13})_([A-Za-z0-9]{6})");

    private BusinessIds() {
    }

    /**
     * A business id taken apart.
     *
     * @param userId the user it was made for
     * @param epochMillis when it was made
     */
    public record Parsed(long userId, long epochMillis) {
    }

    /** The parts of {@code value}, or empty when it is not a business id. */
    public static Optional<Parsed> parse(String value) {
        Matcher matcher = FORMAT.matcher(value);
        if (!matcher.matches()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Parsed(Long.parseLong(matcher.group(1)), Long.parseLong(matcher.group(2))));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** The business id of a flash-sale order placed with the one-time token {@code token}. */
    public static String forToken(String token) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
            return "tk_" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
    }
}
