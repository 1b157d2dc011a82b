package io.onlyonce.spring.messaging.rabbit;

import io.onlyonce.messaging.MessageConsumer;
import io.onlyonce.messaging.MessageTransport;
import io.onlyonce.messaging.rabbit.IdempotentRabbitListener;
import io.onlyonce.messaging.rabbit.RabbitMessageTransport;
import io.onlyonce.messaging.rabbit.RabbitTopology;
import io.onlyonce.spring.autoconfigure.OnlyOnceProperties;
import io.onlyonce.spring.messaging.ConsumerDefinition;
import io.onlyonce.spring.messaging.MessageConsumers;
import io.onlyonce.spring.messaging.MessageLayerCounting;
import io.onlyonce.spring.messaging.autoconfigure.ConsumersLifecycle;
import io.onlyonce.spring.messaging.autoconfigure.OnlyOnceMessagingAutoConfiguration;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import java.util.ArrayList;
import java.util.List;
import org.springframework.amqp.core.AmqpAdmin;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;

/**
 * The message layer on RabbitMQ ({@code onlyonce.messaging.transport=rabbit}), through the
 * application's Spring AMQP connection factory and template: the relay's transport (publisher
 * confirms, mandatory returns) and, for each {@link ConsumerDefinition}, its exchange, queue, binding
 * and dead-letter queue, and an idempotent listener container. Applies where the message layer does
 * ({@link OnlyOnceMessagingAutoConfiguration}: one {@code DataSource}, {@code onlyonce-messaging} on
 * the class path) and {@code onlyonce-messaging-rabbit} and Spring AMQP are there too.
 */
@AutoConfiguration(after = OnlyOnceMessagingAutoConfiguration.class, afterName = {
    "org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration",
    // Spring Boot 3's name of the same
    "org.springframework.boot.autoconfigure.amqp.RabbitAutoConfiguration"
})
@ConditionalOnClass({RabbitMessageTransport.class, RabbitTemplate.class})
@ConditionalOnProperty(name = "onlyonce.messaging.transport", havingValue = "rabbit")
@ConditionalOnBean(MessageConsumers.class)
public class OnlyOnceRabbitAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(MessageTransport.class)
    RabbitMessageTransport onlyOnceRabbitTransport(RabbitTemplate rabbitTemplate, OnlyOnceProperties properties) {
        return new RabbitMessageTransport(rabbitTemplate, properties.messaging().rabbit().confirmTimeout());
    }

    /** Declares each consumer's exchange, queue, binding and dead-letter queue, and runs its listener. */
    @Bean
    @ConditionalOnMissingBean(name = "onlyOnceRabbitConsumers")
    SmartLifecycle onlyOnceRabbitConsumers(MessageConsumers consumers,
            ObjectProvider<ConsumerDefinition> definitions, RabbitTemplate rabbitTemplate,
            ConnectionFactory connectionFactory, AmqpAdmin amqpAdmin, OnlyOnceProperties properties,
            OnlyOnceStatistics statistics) {
        OnlyOnceProperties.Rabbit settings = properties.messaging().rabbit();
        List<SimpleMessageListenerContainer> containers = new ArrayList<>();
        for (ConsumerDefinition definition : definitions.orderedStream().toList()) {
            RabbitTopology topology = RabbitTopology.forConsumer(definition.exchange(), definition.routingKey(),
                    definition.name());
            if (settings.quorumQueues()) {
                topology = topology.withQuorumQueues().withDeliveryLimit(settings.maxDeliveries());
            }
            topology.declare(amqpAdmin);
            MessageConsumer consumer = consumers.named(definition.name());
            String endpoint = "consumer " + definition.name();
            IdempotentRabbitListener listener = IdempotentRabbitListener.builder(consumer, rabbitTemplate)
                    .topology(topology)
                    .maxDeliveries(settings.maxDeliveries())
                    .requeueDelay(settings.requeueDelay())
                    // what the listener dead-letters itself (the consumer counts its own)
                    .onOwnDeadLetter(reason -> statistics.record(MessageLayerCounting.LAYER, "dead_lettered", endpoint))
                    .build();
            SimpleMessageListenerContainer container = listener.newContainer(connectionFactory, definition.name());
            container.setConcurrentConsumers(properties.messaging().consumer().workers());
            containers.add(container);
        }
        return new ConsumersLifecycle<>(containers, SimpleMessageListenerContainer::start,
                SimpleMessageListenerContainer::stop);
    }
}
