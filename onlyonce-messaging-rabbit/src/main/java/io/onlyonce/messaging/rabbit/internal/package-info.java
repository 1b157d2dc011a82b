/**
 * Internals of the RabbitMQ transport; not an API, may change without notice.
 */
@NullMarked
package io.onlyonce.messaging.rabbit.internal;

import org.jspecify.annotations.NullMarked;
