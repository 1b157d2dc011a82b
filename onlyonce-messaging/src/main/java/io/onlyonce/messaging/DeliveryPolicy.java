package io.onlyonce.messaging;

import io.onlyonce.messaging.internal.ShortError;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The one rule by which every transport's listener (RabbitMQ's, Kafka's) turns a delivery into an
 * acknowledgement, a redelivery or a dead letter, so that the same message meets the same fate on
 * every broker:
 * <ol>
 *   <li>A delivery that cannot be processed at all is dead-lettered by the listener itself, before
 *       any consumer sees it ({@link #unusable}): no message id, a malformed one (not 1 to 255
 *       visible ASCII characters), a body that is not UTF-8.</li>
 *   <li>Otherwise the consumer decides ({@link #decide}); a consumer that throws asks for a
 *       redelivery. PROCESSED and DUPLICATE are acknowledged; DEAD_LETTER is dead-lettered with
 *       the consumer's reason; RETRY is redelivered, until the delivery is the
 *       {@code maxDeliveries}-th, which is dead-lettered by the listener as
 *       {@code retries exhausted after n deliveries: <reason>}.</li>
 * </ol>
 * A {@link Decision.DeadLetter} says whether the listener decided it ({@code own}) or the consumer
 * did: what a listener's {@code onOwnDeadLetter} hook is told of.
 *
 * <p>A listener whose framework runs the application's handler itself, so that no
 * {@link MessageConsumer} answers (Spring Kafka's {@code @KafkaListener} containers), applies the
 * same rule: {@link #unusable} before the handler, {@link #decide(Delivery, int)} for a duplicate the
 * inbox found, and {@link #failed} for a handler that threw, which answers what an
 * {@link IdempotentConsumer} would.
 */
public final class DeliveryPolicy {

    private static final System.Logger LOG = System.getLogger(DeliveryPolicy.class.getName());

    private final int maxDeliveries;

    /** @param maxDeliveries how many deliveries a message gets before its retries are exhausted, at least 1 */
    public DeliveryPolicy(int maxDeliveries) {
        if (maxDeliveries < 1) {
            throw new IllegalArgumentException("maxDeliveries must be at least 1");
        }
        this.maxDeliveries = maxDeliveries;
    }

    /** How many deliveries a message gets. */
    public int maxDeliveries() {
        return maxDeliveries;
    }

    /** What the listener does with one delivery. */
    public sealed interface Decision {

        /**
         * Acknowledge: the consumer processed it, or had before.
         *
         * @param duplicate whether it had been processed before
         */
        record Acknowledge(boolean duplicate) implements Decision {
        }

        /**
         * Hand it back to the broker for a later delivery.
         *
         * @param reason why this delivery failed
         */
        record Redeliver(String reason) implements Decision {
        }

        /**
         * Move it to the dead letters.
         *
         * @param reason why, as the dead letter carries it
         * @param own whether the listener decided it (an unusable delivery, exhausted retries) rather
         *     than the consumer
         */
        record DeadLetter(String reason, boolean own) implements Decision {
        }
    }

    /**
     * Why a delivery with message id {@code id} and body {@code payload} (null when the body is not
     * UTF-8, see {@link #utf8}) cannot be processed at all, or null when it can.
     */
    public static @Nullable String unusable(@Nullable String id, @Nullable String payload) {
        String invalid = ConsumerSupport.invalidId(id);
        if (invalid != null) {
            return invalid;
        }
        return payload == null ? "payload is not UTF-8" : null;
    }

    /** {@code body} as text, or null when it is not well-formed UTF-8. */
    public static @Nullable String utf8(byte[] body) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(body)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /**
     * Has {@code consumer} process {@code message}, its {@code delivery}-th delivery (1 for the
     * first), and decides what the listener does.
     */
    public Decision decide(MessageConsumer consumer, InboundMessage message, int delivery) {
        Delivery result;
        try {
            result = Objects.requireNonNull(consumer.process(message), "the consumer answered null");
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "consumer " + consumer.name() + ": processing message " + message.id()
                    + " failed", e);
            result = Delivery.retry(String.valueOf(e));
        }
        return decide(result, delivery);
    }

    /**
     * What the listener does with {@code answer}, the consumer's result of the message's
     * {@code delivery}-th delivery: the rule of {@link #decide(MessageConsumer, InboundMessage, int)}
     * for a listener that has the answer already.
     */
    public Decision decide(Delivery answer, int delivery) {
        switch (answer.kind()) {
            case PROCESSED:
                return new Decision.Acknowledge(false);
            case DUPLICATE:
                return new Decision.Acknowledge(true);
            case RETRY:
                String reason = ((Delivery.Retry) answer).reason();
                return delivery >= maxDeliveries
                        ? new Decision.DeadLetter("retries exhausted after " + delivery + " deliveries: " + reason, true)
                        : new Decision.Redeliver(reason);
            default:
                return new Decision.DeadLetter(((Delivery.DeadLetter) answer).reason(), false);
        }
    }

    /**
     * What the listener does after the {@code attempt}-th attempt (1 for the first) at a message
     * failed with {@code error}, for a listener that runs the inbox row and the application's handler
     * itself, in one transaction per delivery, and makes each further attempt a redelivery (Spring
     * Kafka's {@code @KafkaListener} containers, which cannot hand a record to a
     * {@link MessageConsumer}). Its answer is the one an {@link IdempotentConsumer} gives for the same
     * failure after the same attempts, with {@code maxDeliveries} as its
     * {@link ConsumerConfig#maxAttempts() maxAttempts}, so that the message ends the same way: a
     * {@link PermanentMessageFailure} in the cause chain is dead-lettered at once with its reason;
     * any other failure is redelivered, and on the {@code maxDeliveries}-th attempt dead-lettered as
     * {@code failed n attempts: <SimpleName: message>}. Both dead letters are the consumer's
     * ({@code own} false), as they are when an {@link IdempotentConsumer} answers them.
     *
     * @param error what the handler threw, unwrapped from the listener framework's own wrappers
     */
    public Decision failed(Throwable error, int attempt) {
        PermanentMessageFailure permanent = ConsumerSupport.permanent(error);
        if (permanent != null) {
            return new Decision.DeadLetter(ConsumerSupport.reason(permanent), false);
        }
        String cause = ShortError.of(error);
        return attempt >= maxDeliveries
                ? new Decision.DeadLetter(ShortError.clean(ConsumerSupport.attemptsFailed(attempt, cause)), false)
                : new Decision.Redeliver(cause);
    }
}
