package io.onlyonce.messaging.kafka;

/**
 * The counts of an {@link IdempotentKafkaConsumer} since it was built, over all its threads.
 *
 * @param processed records the consumer processed (effect and inbox row committed)
 * @param duplicates records the inbox dropped as processed before
 * @param skipped records whose message type did not match the consumer's pattern (committed, not processed)
 * @param deadLettered records published to the dead-letter topic and acknowledged there
 * @param retried records sought back and delivered again after the retry delay
 * @param rebalances partition assignments the consumer's threads received, the first ones included
 */
public record KafkaConsumerStats(long processed, long duplicates, long skipped, long deadLettered, long retried,
        long rebalances) {

    public KafkaConsumerStats {
        if (processed < 0 || duplicates < 0 || skipped < 0 || deadLettered < 0 || retried < 0 || rebalances < 0) {
            throw new IllegalArgumentException("counts are never negative");
        }
    }
}
