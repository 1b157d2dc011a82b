/**
 * The idempotency engine: runs an action at most once per key on any
 * {@link io.onlyonce.store.IdempotencyStore}, and reports what happened as an {@link
 * io.onlyonce.engine.Outcome}.
 */
@NullMarked
package io.onlyonce.engine;

import org.jspecify.annotations.NullMarked;
