package io.onlyonce.messaging;

import io.onlyonce.IdempotencyKey;
import io.onlyonce.messaging.internal.Backoff;
import io.onlyonce.messaging.internal.ShortError;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

/**
 * What both idempotent consumers share: the check of the message id, the counters, the backoff
 * between attempts, and the MDC of the delivery ({@value #MDC_REQUEST_ID} from the message's
 * {@value #REQUEST_ID_HEADER} header, and {@value #MDC_MESSAGE_ID}).
 */
final class ConsumerSupport {

    /** The header that carries the id of the request that caused a message. */
    public static final String REQUEST_ID_HEADER = "X-Request-ID";
    /** The MDC key of the request id while a message is processed (the reference service's). */
    public static final String MDC_REQUEST_ID = "requestId";
    /** The MDC key of the message id while a message is processed. */
    public static final String MDC_MESSAGE_ID = "messageId";

    private static final System.Logger LOG = System.getLogger("io.onlyonce.messaging.Consumer");

    private final String name;
    private final Backoff backoff;
    private final LongAdder processed = new LongAdder();
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder retried = new LongAdder();
    private final LongAdder requeued = new LongAdder();
    private final LongAdder deadLettered = new LongAdder();

    public ConsumerSupport(String name, ConsumerConfig config) {
        if (!IdempotencyKey.isValidName(name)) {
            throw new IllegalArgumentException("a consumer name is 1 to 255 visible ASCII characters");
        }
        this.name = name;
        this.backoff = new Backoff(config.initialBackoff(), config.backoffMultiplier(), config.backoffJitter(),
                config.maxBackoff());
    }

    /** Why the message's id cannot be used, or null when it can. */
    public static @Nullable String invalidId(@Nullable String id) {
        if (id == null || id.isEmpty()) {
            return "missing message id";
        }
        if (!IdempotencyKey.isValidName(id)) {
            return "malformed message id (not 1 to 255 visible ASCII characters)";
        }
        return null;
    }

    /** The request id header of {@code message}, its name compared ignoring case. */
    public static @Nullable String requestId(InboundMessage message) {
        String exact = message.headers().get(REQUEST_ID_HEADER);
        if (exact != null) {
            return exact;
        }
        for (Map.Entry<String, String> header : message.headers().entrySet()) {
            if (header.getKey().equalsIgnoreCase(REQUEST_ID_HEADER)) {
                return header.getValue();
            }
        }
        return null;
    }

    /** Puts the delivery's ids in the MDC; closing the scope restores what was there. */
    public static MdcScope mdc(InboundMessage message) {
        return new MdcScope(requestId(message), message.id());
    }

    /** The first {@link PermanentMessageFailure} in the cause chain of {@code error}, or null. */
    public static @Nullable PermanentMessageFailure permanent(@Nullable Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof PermanentMessageFailure permanent) {
                return permanent;
            }
        }
        return null;
    }

    /** The reason of a permanent failure: its message, or its short description. */
    public static String reason(PermanentMessageFailure failure) {
        String message = failure.getMessage();
        return message == null || message.isBlank() ? ShortError.of(failure) : ShortError.clean(message);
    }

    /** The reason of a message whose handler failed {@code attempt} times, the last time with {@code cause}. */
    public static String attemptsFailed(int attempt, String cause) {
        return "failed " + attempt + (attempt == 1 ? " attempt: " : " attempts: ") + cause;
    }

    public Delivery processed() {
        processed.increment();
        return Delivery.PROCESSED;
    }

    public Delivery duplicate() {
        duplicates.increment();
        return Delivery.DUPLICATE;
    }

    public Delivery requeue(String reason) {
        requeued.increment();
        LOG.log(System.Logger.Level.DEBUG, "consumer {0}: message handed back for redelivery: {1}", name, reason);
        return Delivery.retry(ShortError.clean(reason));
    }

    public Delivery deadLetter(String reason) {
        deadLettered.increment();
        LOG.log(System.Logger.Level.WARNING, "consumer {0}: message dead-lettered: {1}", name, reason);
        return Delivery.deadLetter(ShortError.clean(reason));
    }

    /**
     * Waits the backoff after failed attempt {@code attempt}, counting a retry.
     *
     * @return false when interrupted (the interrupt flag is set again)
     */
    public boolean awaitRetry(int attempt) {
        retried.increment();
        Duration wait = backoff.after(attempt);
        try {
            Thread.sleep(wait.toMillis());
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    public ConsumerStats stats() {
        return new ConsumerStats(processed.sum(), duplicates.sum(), retried.sum(), requeued.sum(), deadLettered.sum());
    }

    /** MDC entries of one delivery. */
    public static final class MdcScope implements AutoCloseable {
        private final @Nullable String previousRequestId;
        private final @Nullable String previousMessageId;

        MdcScope(@Nullable String requestId, @Nullable String messageId) {
            previousRequestId = MDC.get(MDC_REQUEST_ID);
            previousMessageId = MDC.get(MDC_MESSAGE_ID);
            put(MDC_REQUEST_ID, requestId == null ? null : ShortError.clean(requestId));
            put(MDC_MESSAGE_ID, messageId);
        }

        @Override
        public void close() {
            put(MDC_REQUEST_ID, previousRequestId);
            put(MDC_MESSAGE_ID, previousMessageId);
        }

        private static void put(String key, @Nullable String value) {
            if (value == null) {
                MDC.remove(key);
            } else {
                MDC.put(key, value);
            }
        }
    }
}
