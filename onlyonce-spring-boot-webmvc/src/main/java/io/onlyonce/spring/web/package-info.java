/**
 * The Spring MVC side of {@link io.onlyonce.spring.Idempotent}: a filter that captures the
 * response of an admitted request and records it, a method interceptor that claims the key or
 * consumes the token before the handler runs, the token endpoint, and problem details.
 */
@NullMarked
package io.onlyonce.spring.web;

import org.jspecify.annotations.NullMarked;
