package io.onlyonce.verify.run;

/** The run could not take place (exit 2): a missing build, a server that did not start. */
public final class CannotRun extends RuntimeException {

    public CannotRun(String message) {
        super(message);
    }

    public CannotRun(String message, Throwable cause) {
        super(message, cause);
    }
}
