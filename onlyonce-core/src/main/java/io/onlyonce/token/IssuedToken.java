package io.onlyonce.token;

import java.time.Instant;

/**
 * A token as handed to a client.
 *
 * @param value the opaque, signed text the client sends back (base64url, 98 characters)
 * @param expiresAt when it stops being accepted
 */
public record IssuedToken(String value, Instant expiresAt) {
}
