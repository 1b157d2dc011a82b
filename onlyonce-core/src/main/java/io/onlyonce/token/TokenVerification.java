package io.onlyonce.token;

/**
 * The result of checking a presented token's form, signature and binding (no store call). Whether
 * the token is still alive, and unused, is the store's decision when it is consumed.
 */
public sealed interface TokenVerification {

    /**
     * Signed by us, bound to this principal and scope.
     *
     * @param token the token to consume
     */
    record Valid(OneTimeToken token) implements TokenVerification {
    }

    /** Not a token at all (wrong length, alphabet, encoding or version). */
    record Malformed() implements TokenVerification {
    }

    /** Well-formed but no configured secret signed it. */
    record Forged() implements TokenVerification {
    }

    /** Genuine, but issued to another principal or for another scope. */
    record WrongBinding() implements TokenVerification {
    }
}
