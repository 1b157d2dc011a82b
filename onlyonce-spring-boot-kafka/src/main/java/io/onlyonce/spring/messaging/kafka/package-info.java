/**
 * {@code @KafkaListener} methods that take effect once, on the container factories
 * {@code onlyOnceKafkaListenerContainerFactory} and {@code onlyOnceKafkaBatchListenerContainerFactory}:
 * the inbox row in the listener's database transaction ({@link io.onlyonce.spring.messaging.kafka.KafkaInboxInterceptor}),
 * offsets committed after it, failures rolled back, retried and dead-lettered to {@code <topic>.DLT}
 * ({@link io.onlyonce.spring.messaging.kafka.InboxAfterRollbackProcessor},
 * {@link io.onlyonce.spring.messaging.kafka.KafkaDeadLetters}), each as the
 * {@link io.onlyonce.messaging.DeliveryPolicy DeliveryPolicy} of every OnlyOnce consumer decides.
 */
@NullMarked
package io.onlyonce.spring.messaging.kafka;

import org.jspecify.annotations.NullMarked;
