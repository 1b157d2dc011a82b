package io.onlyonce.token;

import java.time.Instant;

/**
 * What a store needs to know of a token: its random id and the expiry its issuer signed into it.
 * The id is 128 random bits in canonical base64url without padding (22 characters); signature and
 * binding stay with the {@link TokenService}. The signed expiry is the issuer's statement, a stable
 * address for stores that group tokens by expiry; whether the token is still alive is decided by the
 * store on its own clock.
 *
 * @param id the random id
 * @param expiresAt the expiry the issuer signed into the token
 */
public record OneTimeToken(String id, Instant expiresAt) {

    /** Length of {@link #id()}. */
    public static final int ID_LENGTH = 22;

    public OneTimeToken {
        if (id == null || id.length() != ID_LENGTH) {
            throw new IllegalArgumentException("a token id is " + ID_LENGTH + " characters");
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            boolean ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
            if (!ok) {
                throw new IllegalArgumentException("a token id is base64url");
            }
        }
        if ("AQgw".indexOf(id.charAt(ID_LENGTH - 1)) < 0) {
            throw new IllegalArgumentException("a token id is the canonical base64url of 16 bytes");
        }
        if (expiresAt == null) {
            throw new IllegalArgumentException("expiresAt must not be null");
        }
    }
}
