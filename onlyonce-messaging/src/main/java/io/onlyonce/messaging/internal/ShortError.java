package io.onlyonce.messaging.internal;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * One short line that says what went wrong, for the {@code last_error} column, dead-letter reasons
 * and logs: the exception's simple class name and message (of the first cause that has one), no
 * stack trace, control characters turned into spaces, cut to a maximum length.
 */
public final class ShortError {

    /** The longest text kept; the {@code last_error} column holds 500 characters. */
    public static final int MAX_LENGTH = 500;

    private ShortError() {
    }

    /** The failure behind the wrappers that futures add ({@link CompletionException}, {@link ExecutionException}). */
    public static Throwable unwrap(Throwable error) {
        Throwable current = error;
        while ((current instanceof CompletionException || current instanceof ExecutionException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }

    /** {@code SimpleName: message} of {@code error}, at most {@link #MAX_LENGTH} characters. */
    public static String of(Throwable error) {
        Throwable failure = unwrap(error);
        String message = failure.getMessage();
        for (Throwable cause = failure.getCause(); (message == null || message.isBlank()) && cause != null
                && cause != cause.getCause(); cause = cause.getCause()) {
            message = cause.getMessage();
        }
        String text = failure.getClass().getSimpleName() + (message == null || message.isBlank() ? "" : ": " + message);
        return clean(text);
    }

    /** {@code text} on one line, at most {@link #MAX_LENGTH} characters, never splitting a surrogate pair. */
    public static String clean(String text) {
        StringBuilder line = new StringBuilder(Math.min(text.length(), MAX_LENGTH));
        for (int i = 0; i < text.length() && line.length() < MAX_LENGTH; i++) {
            char c = text.charAt(i);
            if (Character.isISOControl(c)) {
                line.append(' ');
            } else if (Character.isHighSurrogate(c)) {
                if (i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1)) && line.length() + 2 <= MAX_LENGTH) {
                    line.append(c).append(text.charAt(++i));
                } else {
                    line.append('?');
                    if (i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                        i++;
                    }
                }
            } else if (Character.isLowSurrogate(c)) {
                line.append('?');
            } else {
                line.append(c);
            }
        }
        return line.toString();
    }
}
