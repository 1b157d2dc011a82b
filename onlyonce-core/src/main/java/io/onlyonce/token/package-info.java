/**
 * One-time tokens: {@link io.onlyonce.token.TokenService} issues signed tokens bound to a
 * principal and a scope, verifies them without a store call, and consumes each exactly once
 * through a {@link io.onlyonce.token.TokenStore}. Lifecycle: CREATED, then CONSUMED or EXPIRED.
 */
@NullMarked
package io.onlyonce.token;

import org.jspecify.annotations.NullMarked;
