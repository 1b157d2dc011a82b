package io.onlyonce.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.messaging.DeliveryPolicy.Decision;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The one rule every transport's listener applies: what is dead-lettered before the consumer, what the consumer's answers become. */
class DeliveryPolicyTest {

    private final DeliveryPolicy policy = new DeliveryPolicy(3);

    private static InboundMessage message() {
        return new InboundMessage("order-1_paid", "orders", "order.paid", "{}", Map.of(), false);
    }

    private static MessageConsumer answering(Function<InboundMessage, Delivery> answer) {
        return new MessageConsumer() {
            @Override
            public String name() {
                return "billing";
            }

            @Override
            public Delivery process(InboundMessage message) {
                return answer.apply(message);
            }

            @Override
            public ConsumerStats stats() {
                return new ConsumerStats(0, 0, 0, 0, 0);
            }
        };
    }

    @Test
    void aDeliveryWithoutAUsableIdOrUtf8BodyIsRefusedBeforeAnyConsumer() {
        assertThat(DeliveryPolicy.unusable(null, "{}")).isEqualTo("missing message id");
        assertThat(DeliveryPolicy.unusable("", "{}")).isEqualTo("missing message id");
        assertThat(DeliveryPolicy.unusable("has space", "{}"))
                .isEqualTo("malformed message id (not 1 to 255 visible ASCII characters)");
        assertThat(DeliveryPolicy.unusable("order-1_paid", DeliveryPolicy.utf8(new byte[] {(byte) 0xC3, (byte) 0x28})))
                .isEqualTo("payload is not UTF-8");
        assertThat(DeliveryPolicy.unusable("order-1_paid", DeliveryPolicy.utf8("支付 ✓".getBytes(StandardCharsets.UTF_8))))
                .isNull();
    }

    @Test
    void processedAndDuplicateAreAcknowledged() {
        assertThat(policy.decide(answering(m -> Delivery.PROCESSED), message(), 1)).isEqualTo(new Decision.Acknowledge(false));
        assertThat(policy.decide(answering(m -> Delivery.DUPLICATE), message(), 1)).isEqualTo(new Decision.Acknowledge(true));
    }

    @Test
    void aRetryIsRedeliveredUntilTheLastDeliveryWhichTheListenerDeadLetters() {
        MessageConsumer busy = answering(m -> Delivery.retry("database down"));

        assertThat(policy.decide(busy, message(), 2)).isEqualTo(new Decision.Redeliver("database down"));
        assertThat(policy.decide(busy, message(), 3))
                .isEqualTo(new Decision.DeadLetter("retries exhausted after 3 deliveries: database down", true));
    }

    @Test
    void aConsumerThatThrowsAsksForARedelivery() {
        Decision decision = policy.decide(answering(m -> {
            throw new IllegalStateException("boom");
        }), message(), 1);

        assertThat(decision).isEqualTo(new Decision.Redeliver("java.lang.IllegalStateException: boom"));
    }

    @Test
    void theConsumersOwnDeadLetterKeepsItsReasonAndIsNotTheListeners() {
        assertThat(policy.decide(answering(m -> Delivery.deadLetter("order cancelled")), message(), 1))
                .isEqualTo(new Decision.DeadLetter("order cancelled", false));
    }

    @Test
    void anAnswerTheListenerHasAlreadyIsDecidedByTheSameRule() {
        assertThat(policy.decide(Delivery.DUPLICATE, 1)).isEqualTo(new Decision.Acknowledge(true));
        assertThat(policy.decide(Delivery.retry("database down"), 3))
                .isEqualTo(new Decision.DeadLetter("retries exhausted after 3 deliveries: database down", true));
    }

    @Test
    void aHandlerThatFailsIsRedeliveredUntilItsLastAttemptWhichIsDeadLetteredAsAnIdempotentConsumerWould() {
        IllegalStateException error = new IllegalStateException("the points service refused m3");

        assertThat(policy.failed(error, 1)).isEqualTo(new Decision.Redeliver("IllegalStateException: the points service refused m3"));
        assertThat(policy.failed(error, 2)).isInstanceOf(Decision.Redeliver.class);
        assertThat(policy.failed(error, 3))
                .isEqualTo(new Decision.DeadLetter("failed 3 attempts: IllegalStateException: the points service refused m3", false));
        assertThat(new DeliveryPolicy(1).failed(error, 1))
                .isEqualTo(new Decision.DeadLetter("failed 1 attempt: IllegalStateException: the points service refused m3", false));
    }

    @Test
    void aPermanentFailureOfTheHandlerIsDeadLetteredAtOnceWithItsReason() {
        RuntimeException wrapped = new RuntimeException("listener failed",
                new PermanentMessageFailure("order cancelled"));

        assertThat(policy.failed(wrapped, 1)).isEqualTo(new Decision.DeadLetter("order cancelled", false));
    }
}
