/** Implementation details; not API, may change without notice. */
@NullMarked
package io.onlyonce.internal;

import org.jspecify.annotations.NullMarked;
