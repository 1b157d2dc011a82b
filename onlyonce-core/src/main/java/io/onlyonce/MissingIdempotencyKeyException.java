package io.onlyonce;

/**
 * No idempotency key where one is required: a key expression that gave null or blank, or could not
 * be evaluated (a null in the middle of {@code #request.customer.id}). Nothing was stored, and the
 * method did not run. Answered over HTTP as {@code 400 idempotency-key-missing}, as a handler's
 * missing key is.
 */
public class MissingIdempotencyKeyException extends InvalidIdempotencyKeyException {

    private static final long serialVersionUID = 1L;

    public MissingIdempotencyKeyException(String message) {
        super(message);
    }
}
