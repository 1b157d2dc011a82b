/** Internals of the gateway filter: body reading, fingerprints, problems, the start-up line check. Not an API. */
@NullMarked
package io.onlyonce.gateway.internal;

import org.jspecify.annotations.NullMarked;
