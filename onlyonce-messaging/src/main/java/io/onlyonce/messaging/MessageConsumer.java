package io.onlyonce.messaging;

/**
 * An idempotent consumer as a transport sees it: called once per delivery, on the transport's
 * thread, it decides the fate of the delivery ({@link Delivery}). The transport acknowledges
 * {@link Delivery#acknowledge() PROCESSED and DUPLICATE}, redelivers RETRY later, and dead-letters
 * DEAD_LETTER; it acknowledges only after {@link #process} returned, so a crash before that
 * redelivers the message, which the consumer's inbox then recognises.
 *
 * <p>Implementations: {@link IdempotentConsumer} (inbox row and side effect in one database
 * transaction) and {@link StoreIdempotentConsumer} (side effects outside the database, keyed in an
 * {@link io.onlyonce.store.IdempotencyStore}, with a weaker guarantee). Both are thread-safe: a
 * transport may call {@link #process} from several threads at once, also with the same message.
 */
public interface MessageConsumer {

    /** The consumer's name: its namespace in the inbox, 1 to 255 visible ASCII characters. */
    String name();

    /** Processes one delivery; never throws for a failure of the message or its side effect. */
    Delivery process(InboundMessage message);

    /** The counts since the consumer was created. */
    ConsumerStats stats();
}
