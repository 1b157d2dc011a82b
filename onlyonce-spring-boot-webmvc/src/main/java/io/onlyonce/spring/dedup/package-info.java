/**
 * The servlet form of the gateway layer: a request fingerprint and a short window, for services
 * that have no gateway in front of them.
 */
@NullMarked
package io.onlyonce.spring.dedup;

import org.jspecify.annotations.NullMarked;
