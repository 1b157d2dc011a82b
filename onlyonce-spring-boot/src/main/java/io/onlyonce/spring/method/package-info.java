/**
 * {@code @Idempotent} on any Spring bean method: the advice that every annotated method goes
 * through, the per-method settings, and calls outside HTTP (service methods, message listeners),
 * whose return value is stored as JSON and returned again to a duplicate call.
 */
@NullMarked
package io.onlyonce.spring.method;

import org.jspecify.annotations.NullMarked;
