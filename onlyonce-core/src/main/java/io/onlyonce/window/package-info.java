/**
 * The request window: a counter per fingerprint in a short fixed window. The first hit of a window
 * is "the first time this request is seen" (the gateway layer's de-dup); the count serves
 * per-caller rate limits.
 */
@NullMarked
package io.onlyonce.window;

import org.jspecify.annotations.NullMarked;
