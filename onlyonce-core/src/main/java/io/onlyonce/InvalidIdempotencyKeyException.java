package io.onlyonce;

/** An idempotency key that breaks the rules of {@link IdempotencyKey}. Nothing was stored. */
public class InvalidIdempotencyKeyException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public InvalidIdempotencyKeyException(String message) {
        super(message);
    }
}
