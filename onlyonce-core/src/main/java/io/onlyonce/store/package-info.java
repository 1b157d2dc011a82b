/**
 * The idempotency store SPI: a handful of primitives that every backend (in-memory, Redis,
 * JDBC) implements with the same atomic rules, checked by one contract suite in
 * {@code onlyonce-test-support}. The time of each call is passed in ({@code Instant now}), so the
 * rules hold the same under a fake clock and across machines.
 */
@NullMarked
package io.onlyonce.store;

import org.jspecify.annotations.NullMarked;
