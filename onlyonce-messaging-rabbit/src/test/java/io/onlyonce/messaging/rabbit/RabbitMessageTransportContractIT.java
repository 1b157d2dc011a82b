package io.onlyonce.messaging.rabbit;

import io.onlyonce.messaging.MessageTransport;
import io.onlyonce.testing.messaging.AbstractMessageTransportContractTest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/** The RabbitMQ transport passes the transport contract on the real broker, in a virtual host of its own. */
class RabbitMessageTransportContractIT extends AbstractMessageTransportContractTest {

    static ScratchVhost vhost;
    static RabbitAdmin admin;
    static RabbitTemplate reader;
    static RabbitMessageTransport transport;

    private final Map<Route, String> queues = new java.util.concurrent.ConcurrentHashMap<>();

    @BeforeAll
    static void connect() {
        vhost = ScratchVhost.create("contract");
        admin = vhost.admin();
        reader = new RabbitTemplate(vhost.plainFactory());
        transport = new RabbitMessageTransport(vhost.confirmingTemplate(), Duration.ofSeconds(10));
    }

    @AfterAll
    static void close() {
        if (vhost != null) {
            vhost.close();
        }
    }

    @Override
    protected MessageTransport transport() {
        return transport;
    }

    @Override
    protected Route newRoute() {
        String name = "contract-" + UUID.randomUUID();
        RabbitTopology topology = RabbitTopology.forConsumer(name + ".events", "order.*", name);
        topology.declare(admin);
        Route route = new Route(topology.exchange(), "order.paid");
        queues.put(route, topology.queue());
        return route;
    }

    /** An exchange that exists, with no queue bound for the key: the broker returns the message. */
    @Override
    protected Route unroutable() {
        String name = "contract-" + UUID.randomUUID();
        RabbitTopology.forConsumer(name + ".events", "order.*", name).declare(admin);
        return new Route(name + ".events", "invoice.created");
    }

    @Override
    protected List<Delivered> read(Route route, int expected, Duration within) {
        String queue = queues.get(route);
        List<Delivered> delivered = new ArrayList<>();
        long deadline = System.nanoTime() + within.toNanos();
        while (delivered.size() < expected && System.nanoTime() < deadline) {
            add(delivered, reader.receive(queue, 200));
        }
        // a little longer: more than expected would show here
        add(delivered, reader.receive(queue, 300));
        return delivered;
    }

    private static void add(List<Delivered> delivered, Message message) {
        if (message == null) {
            return;
        }
        Map<String, String> headers = new LinkedHashMap<>();
        message.getMessageProperties().getHeaders().forEach((name, value) -> headers.put(name, String.valueOf(value)));
        delivered.add(new Delivered(message.getMessageProperties().getMessageId(),
                new String(message.getBody(), StandardCharsets.UTF_8), headers));
    }
}
