package io.onlyonce.json;

/** The bytes given to {@link Json} are not one well-formed JSON document. */
public final class NotJsonException extends Exception {

    private static final long serialVersionUID = 1L;

    NotJsonException(Throwable cause) {
        super(cause.getMessage(), cause);
    }
}
