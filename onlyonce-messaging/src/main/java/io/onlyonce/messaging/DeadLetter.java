package io.onlyonce.messaging;

/**
 * A message that a queue's consumer dead-lettered ({@link Delivery.DeadLetter}), with the reason.
 *
 * @param queue the queue it was delivered from
 * @param message the message as the consumer received it
 * @param reason why it can never be processed: one short line
 */
public record DeadLetter(String queue, InboundMessage message, String reason) {
}
