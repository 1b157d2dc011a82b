package io.onlyonce.messaging;

import java.util.concurrent.atomic.LongAdder;

/** The relay's counts since it was created, added to by its polls and read as {@link RelayStats}. */
final class RelayCounters {

    final LongAdder polls = new LongAdder();
    final LongAdder claimed = new LongAdder();
    final LongAdder sent = new LongAdder();
    final LongAdder retried = new LongAdder();
    final LongAdder failed = new LongAdder();
    final LongAdder pollsFailed = new LongAdder();

    RelayStats snapshot() {
        return new RelayStats(polls.sum(), claimed.sum(), sent.sum(), retried.sum(), failed.sum(), pollsFailed.sum());
    }
}
