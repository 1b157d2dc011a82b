package io.onlyonce.token;

/** The result of checking a presented token's signature, binding and expiry (no store call). */
public sealed interface TokenVerification {

    /**
     * Signed by us, bound to this principal and scope, not expired.
     *
     * @param token the token to consume
     */
    record Valid(OneTimeToken token) implements TokenVerification {
    }

    /** Not a token at all (wrong length, alphabet or version). */
    record Malformed() implements TokenVerification {
    }

    /** Well-formed but no configured secret signed it. */
    record Forged() implements TokenVerification {
    }

    /** Genuine, but issued to another principal or for another scope. */
    record WrongBinding() implements TokenVerification {
    }

    /**
     * Genuine and bound to the caller, but past its expiry.
     *
     * @param token the expired token
     */
    record Expired(OneTimeToken token) implements TokenVerification {
    }
}
