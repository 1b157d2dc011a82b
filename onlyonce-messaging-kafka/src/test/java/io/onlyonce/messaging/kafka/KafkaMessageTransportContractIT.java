package io.onlyonce.messaging.kafka;

import io.onlyonce.messaging.MessageTransport;
import io.onlyonce.testing.messaging.AbstractMessageTransportContractTest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The Kafka transport passes the transport contract on the real broker, each route a topic of its own. */
class KafkaMessageTransportContractIT extends AbstractMessageTransportContractTest {

    static KafkaCluster kafka;
    static KafkaMessageTransport transport;

    @BeforeAll
    static void connect() {
        kafka = KafkaCluster.shared();
        transport = KafkaMessageTransport.create(kafka.producerConfig(), Duration.ofSeconds(5));
    }

    @AfterAll
    static void close() throws Exception {
        if (transport != null) {
            transport.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    @Override
    protected MessageTransport transport() {
        return transport;
    }

    @Override
    protected Route newRoute() {
        return new Route(kafka.newTopic("contract", 3), "order.paid");
    }

    /** A topic that does not exist (the broker creates none on its own). */
    @Override
    protected Route unroutable() {
        return new Route(KafkaCluster.unique("missing"), "order.paid");
    }

    @Override
    protected List<Delivered> read(Route route, int expected, Duration within) {
        List<Delivered> delivered = new ArrayList<>();
        for (ConsumerRecord<String, byte[]> record : kafka.readAll(route.exchange(), expected, within)) {
            Map<String, String> headers = new LinkedHashMap<>();
            for (Header header : record.headers()) {
                headers.put(header.key(), new String(header.value(), StandardCharsets.UTF_8));
            }
            delivered.add(new Delivered(headers.get(KafkaMessageHeaders.MESSAGE_ID), new String(record.value(), StandardCharsets.UTF_8),
                    headers));
        }
        return delivered;
    }
}
