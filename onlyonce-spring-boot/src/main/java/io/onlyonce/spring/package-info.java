/**
 * {@link io.onlyonce.spring.Idempotent} for Spring MVC handler methods: Idempotency-Key replay
 * (the default) or one-time tokens, configured under {@code onlyonce.*}.
 */
@NullMarked
package io.onlyonce.spring;

import org.jspecify.annotations.NullMarked;
