/**
 * What an HTTP request is to OnlyOnce, whatever the platform that received it:
 * {@link io.onlyonce.http.RequestFingerprint}, the one recipe of the business fingerprint that
 * Spring MVC and WebFlux (and an integration of one's own) compute for {@code @Idempotent}, and
 * {@link io.onlyonce.http.WindowFingerprint}, the one recipe of the de-dup window's fingerprint that
 * the servlet filter and the gateway filter compute from a {@link io.onlyonce.http.WindowRequest}.
 */
@NullMarked
package io.onlyonce.http;

import org.jspecify.annotations.NullMarked;
