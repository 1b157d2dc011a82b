package io.onlyonce.messaging.kafka;

import java.util.concurrent.atomic.LongAdder;

/** The counters of one consumer, shared by its threads. */
final class Counters {

    final LongAdder processed = new LongAdder();
    final LongAdder duplicates = new LongAdder();
    final LongAdder skipped = new LongAdder();
    final LongAdder deadLettered = new LongAdder();
    final LongAdder retried = new LongAdder();
    final LongAdder rebalances = new LongAdder();

    /**
     * A snapshot.
     *
     * @return the counts now
     */
    public KafkaConsumerStats snapshot() {
        return new KafkaConsumerStats(processed.sum(), duplicates.sum(), skipped.sum(), deadLettered.sum(),
                retried.sum(), rebalances.sum());
    }
}
