package io.onlyonce.bench.peers;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/** What the plain consumer received: the first receipt time of each message, by {@code seq}. */
final class Receipts {

    private final AtomicLongArray at;
    private final AtomicInteger distinct = new AtomicInteger();
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder strays = new LongAdder();

    Receipts(int size) {
        this.at = new AtomicLongArray(size);
    }

    /** A delivery of the message numbered {@code seq}, now. */
    void receive(long seq) {
        long now = System.nanoTime();
        if (seq < 0 || seq >= at.length()) {
            strays.increment();
            return;
        }
        if (at.compareAndSet((int) seq, 0, now)) {
            distinct.incrementAndGet();
        } else {
            duplicates.increment();
        }
    }

    int distinct() {
        return distinct.get();
    }

    long duplicates() {
        return duplicates.sum();
    }

    long strays() {
        return strays.sum();
    }

    /** {@code System.nanoTime()} of the first receipt of {@code seq}, 0 when not received. */
    long at(int seq) {
        return at.get(seq);
    }
}
