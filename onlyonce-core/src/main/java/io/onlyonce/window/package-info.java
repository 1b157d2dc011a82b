/**
 * The request window: "is this the first time this fingerprint is seen within the window?", the
 * primitive of the gateway layer (a {@code SET NX PX} in Redis).
 */
@NullMarked
package io.onlyonce.window;

import org.jspecify.annotations.NullMarked;
