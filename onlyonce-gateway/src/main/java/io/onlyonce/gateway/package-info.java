/**
 * The gateway layer on Spring Cloud Gateway (WebFlux): the {@code RequestDedup} filter factory
 * ({@link io.onlyonce.gateway.RequestDedupGatewayFilterFactory}), its per-route rules
 * ({@link io.onlyonce.gateway.DedupRule}, changeable at run time through
 * {@link io.onlyonce.gateway.RequestDedupRules}), the reactive window store on Redis
 * ({@link io.onlyonce.gateway.ReactiveRedisWindowStore}, the script and key layout of
 * {@code RedisWindowStore}) and the auto-configuration.
 */
@NullMarked
package io.onlyonce.gateway;

import org.jspecify.annotations.NullMarked;
