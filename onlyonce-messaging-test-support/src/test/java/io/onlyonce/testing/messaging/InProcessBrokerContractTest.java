package io.onlyonce.testing.messaging;

import io.onlyonce.messaging.ConsumerStats;
import io.onlyonce.messaging.Delivery;
import io.onlyonce.messaging.InProcessBroker;
import io.onlyonce.messaging.InboundMessage;
import io.onlyonce.messaging.MessageConsumer;
import io.onlyonce.messaging.MessageTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** The in-process transport of the embedded default passes the transport contract. */
class InProcessBrokerContractTest extends AbstractMessageTransportContractTest {

    private InProcessBroker broker;
    private final Map<String, List<Delivered>> queues = new ConcurrentHashMap<>();

    @BeforeEach
    void start() {
        broker = new InProcessBroker();
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    @Override
    protected MessageTransport transport() {
        return broker;
    }

    @Override
    protected Route newRoute() {
        String name = "contract-" + UUID.randomUUID();
        List<Delivered> delivered = new CopyOnWriteArrayList<>();
        queues.put(name, delivered);
        broker.bind(name, "order.paid", name);
        broker.consume(name, new MessageConsumer() {
            @Override
            public String name() {
                return "contract";
            }

            @Override
            public Delivery process(InboundMessage message) {
                delivered.add(new Delivered(message.id(), message.payload(), message.headers()));
                return Delivery.PROCESSED;
            }

            @Override
            public ConsumerStats stats() {
                return new ConsumerStats(delivered.size(), 0, 0, 0, 0);
            }
        });
        return new Route(name, "order.paid");
    }

    @Override
    protected Route unroutable() {
        return new Route("unbound-" + UUID.randomUUID(), "order.paid");
    }

    @Override
    protected List<Delivered> read(Route route, int expected, Duration within) throws InterruptedException {
        List<Delivered> delivered = queues.get(route.exchange());
        long deadline = System.nanoTime() + within.toNanos();
        while (delivered.size() < expected && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        Thread.sleep(100);
        return new ArrayList<>(delivered);
    }
}
