/**
 * The Kafka transport of the message layer, on the Apache Kafka client.
 */
@NullMarked
package io.onlyonce.messaging.kafka;

import org.jspecify.annotations.NullMarked;
