/** Circuit breakers (resilience4j) in front of the stores, so a dead server is not hammered. */
@NullMarked
package io.onlyonce.spring.resilience;

import org.jspecify.annotations.NullMarked;
