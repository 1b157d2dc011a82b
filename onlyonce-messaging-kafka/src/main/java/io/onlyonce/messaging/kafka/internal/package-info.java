/**
 * Internals of the Kafka transport; not an API, may change without notice.
 */
@NullMarked
package io.onlyonce.messaging.kafka.internal;

import org.jspecify.annotations.NullMarked;
