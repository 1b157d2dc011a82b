/** Counting what each layer stopped: in-process statistics and the Micrometer binding. */
@NullMarked
package io.onlyonce.spring.metrics;

import org.jspecify.annotations.NullMarked;
