/** Implementation details of the Spring Data Redis connection; not API, may change without notice. */
@NullMarked
package io.onlyonce.redis.springdata.internal;

import org.jspecify.annotations.NullMarked;
