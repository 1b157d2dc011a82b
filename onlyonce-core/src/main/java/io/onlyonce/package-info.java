/**
 * OnlyOnce: make every business request take effect only once.
 *
 * <p>The values every layer shares live here: {@link io.onlyonce.IdempotencyKey},
 * {@link io.onlyonce.Fingerprint} and {@link io.onlyonce.StoredResponse}. The SPIs are in
 * {@code io.onlyonce.store}, {@code io.onlyonce.token} and {@code io.onlyonce.window}; the engine
 * that runs an action once per key is {@link io.onlyonce.engine.IdempotencyEngine}.
 */
@NullMarked
package io.onlyonce;

import org.jspecify.annotations.NullMarked;
