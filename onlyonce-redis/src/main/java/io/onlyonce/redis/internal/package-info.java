/** Implementation details of the Redis stores; not API, may change without notice. */
@NullMarked
package io.onlyonce.redis.internal;

import org.jspecify.annotations.NullMarked;
