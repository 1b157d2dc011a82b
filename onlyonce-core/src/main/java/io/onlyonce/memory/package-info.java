/**
 * In-memory stores on Caffeine, for tests and the single-node embedded default. Each store decides
 * expiry on its own injected clock ({@link java.time.InstantSource}), the JVM's by default, so a
 * test moves that clock instead of sleeping. The idempotency and token stores never evict a live
 * entry to make room: when full they refuse new ones.
 */
@NullMarked
package io.onlyonce.memory;

import org.jspecify.annotations.NullMarked;
