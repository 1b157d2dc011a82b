package io.onlyonce.verify.history;

import java.util.Locale;

/**
 * What an operation record says, in Jepsen's terms.
 */
public enum OpType {
    /** A process began an operation. */
    INVOKE,
    /** The operation took place (the server answered 2xx). */
    OK,
    /** The operation definitely did not take place (the server refused it: 4xx). */
    FAIL,
    /** Unknown: it may or may not have taken place (5xx, a timeout, a lost connection, a lost answer); also every nemesis event. */
    INFO;

    /** The name in the history file: {@code invoke}, {@code ok}, {@code fail}, {@code info}. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static OpType ofWire(String text) {
        return valueOf(text.toUpperCase(Locale.ROOT));
    }
}
