/**
 * {@code @Idempotent} handlers whose effect is a Redis script: {@link io.onlyonce.spring.atomic.AtomicIdempotency}
 * runs it in one script call with the request's record, token and window.
 */
@NullMarked
package io.onlyonce.spring.atomic;

import org.jspecify.annotations.NullMarked;
