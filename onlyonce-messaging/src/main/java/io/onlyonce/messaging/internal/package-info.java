/** Implementation details of the message layer; not API, may change without notice. */
@NullMarked
package io.onlyonce.messaging.internal;

import org.jspecify.annotations.NullMarked;
