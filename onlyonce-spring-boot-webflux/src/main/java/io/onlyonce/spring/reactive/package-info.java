/**
 * {@code @Idempotent} on Spring WebFlux: annotated controllers ({@link io.onlyonce.spring.reactive.OnlyOnceWebFilter})
 * and functional routes ({@link io.onlyonce.spring.reactive.OnlyOnceHandlerFilters}), on the engine's
 * non-blocking path ({@link io.onlyonce.engine.IdempotencyEngine#admitAsync}). Applies in reactive web
 * applications only; nothing here is loaded without Spring WebFlux and Reactor.
 */
@NullMarked
package io.onlyonce.spring.reactive;

import org.jspecify.annotations.NullMarked;
