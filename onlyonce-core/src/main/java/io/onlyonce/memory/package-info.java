/**
 * In-memory stores on Caffeine, for tests and the single-node embedded default. Time comes from
 * the {@code now} of each call; Caffeine's own expiry follows an injected clock and only reclaims
 * memory.
 */
@NullMarked
package io.onlyonce.memory;

import org.jspecify.annotations.NullMarked;
