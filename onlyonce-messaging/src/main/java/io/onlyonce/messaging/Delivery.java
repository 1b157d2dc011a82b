package io.onlyonce.messaging;

/**
 * What a {@link MessageConsumer} made of one delivery, and so what the transport does with it:
 *
 * <table>
 *   <caption>results</caption>
 *   <tr><th>result</th><th>meaning</th><th>transport</th></tr>
 *   <tr><td>{@link Processed}</td><td>the side effect and the inbox row committed together</td><td>ack</td></tr>
 *   <tr><td>{@link Duplicate}</td><td>processed before: nothing ran</td><td>ack (drop)</td></tr>
 *   <tr><td>{@link Retry}</td><td>a transient failure (database down, the same message in progress
 *       elsewhere); nothing committed</td><td>redeliver later (nack and requeue, or a delay queue)</td></tr>
 *   <tr><td>{@link DeadLetter}</td><td>can never be processed: no or a malformed message id, a
 *       {@link PermanentMessageFailure}, or every attempt failed; nothing committed</td><td>reject without
 *       requeue, to the dead-letter exchange, with the reason</td></tr>
 * </table>
 *
 * <p>Java 17 has no pattern matching for {@code switch}; switch on {@link #kind()} instead.
 */
public sealed interface Delivery {

    /** The side effect and the inbox row committed: acknowledge. */
    Delivery PROCESSED = new Processed();
    /** The message was processed before; nothing ran: acknowledge and drop. */
    Delivery DUPLICATE = new Duplicate();

    /** Which result this is. */
    Kind kind();

    /** Whether the transport acknowledges the delivery: {@link Processed} and {@link Duplicate}. */
    default boolean acknowledge() {
        return kind() == Kind.PROCESSED || kind() == Kind.DUPLICATE;
    }

    /** A {@link Retry} for {@code reason}. */
    static Delivery retry(String reason) {
        return new Retry(reason);
    }

    /** A {@link DeadLetter} for {@code reason}. */
    static Delivery deadLetter(String reason) {
        return new DeadLetter(reason);
    }

    /** The kinds of result, for a {@code switch}. */
    enum Kind {
        /** See {@link Processed}. */
        PROCESSED,
        /** See {@link Duplicate}. */
        DUPLICATE,
        /** See {@link Retry}. */
        RETRY,
        /** See {@link DeadLetter}. */
        DEAD_LETTER
    }

    /** The side effect and the inbox row committed together: acknowledge. */
    record Processed() implements Delivery {
        @Override
        public Kind kind() {
            return Kind.PROCESSED;
        }
    }

    /** The consumer processed this message id before; nothing ran now: acknowledge and drop. */
    record Duplicate() implements Delivery {
        @Override
        public Kind kind() {
            return Kind.DUPLICATE;
        }
    }

    /**
     * A transient failure; nothing committed: deliver the message again later.
     *
     * @param reason one short line, no stack trace
     */
    record Retry(String reason) implements Delivery {
        public Retry {
            if (reason == null) {
                throw new IllegalArgumentException("reason is required");
            }
        }

        @Override
        public Kind kind() {
            return Kind.RETRY;
        }
    }

    /**
     * The message can never be processed; nothing committed: dead-letter it with the reason, never
     * requeue it.
     *
     * @param reason one short line, no stack trace (for the dead-letter queue's header)
     */
    record DeadLetter(String reason) implements Delivery {
        public DeadLetter {
            if (reason == null) {
                throw new IllegalArgumentException("reason is required");
            }
        }

        @Override
        public Kind kind() {
            return Kind.DEAD_LETTER;
        }
    }
}
