/**
 * The idempotency store SPI: a handful of primitives that every backend (in-memory, Redis,
 * JDBC) implements with the same atomic rules, checked by one contract suite in
 * {@code onlyonce-test-support}. Callers pass durations; every expiry is decided on the store's
 * own clock, which all instances sharing the store share.
 */
@NullMarked
package io.onlyonce.store;

import org.jspecify.annotations.NullMarked;
