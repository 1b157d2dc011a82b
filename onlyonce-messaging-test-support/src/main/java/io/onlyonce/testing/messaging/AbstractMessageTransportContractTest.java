package io.onlyonce.testing.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.messaging.MessageTransport;
import io.onlyonce.messaging.OutboxMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * What the outbox relay relies on from a {@link MessageTransport}, checked against the real broker:
 * a future completes normally only once the broker holds the message, the message arrives with its
 * id, payload and headers, a batch is answered message by message, a message the broker cannot
 * deliver fails (so the relay never marks it sent) without failing the rest of its batch, and a message
 * published twice arrives twice with one id (dropping the second is the consumer's inbox's job).
 *
 * <p>A transport module's test extends it and fills the hooks: {@link #transport()},
 * {@link #newRoute()} (a destination the test can read, new for each call), {@link #unroutable()}
 * and {@link #read}. The transport's own particulars (RabbitMQ's returns and nacks, Kafka's missing
 * topics and flushes) stay in that module's own tests.
 */
public abstract class AbstractMessageTransportContractTest {

    /**
     * Where a message goes, as {@link OutboxMessage#exchange()} and {@link OutboxMessage#routingKey()} name it.
     *
     * @param exchange the exchange (RabbitMQ, in-process) or topic (Kafka)
     * @param routingKey the routing key (Kafka: the message type)
     */
    public record Route(String exchange, String routingKey) {
    }

    /**
     * A message as a consumer of the route received it.
     *
     * @param id the broker's message id (RabbitMQ's {@code message-id}, Kafka's {@code message-id} header)
     * @param payload the body as UTF-8 text
     * @param headers the headers the consumer sees (a transport may add its own)
     */
    public record Delivered(@Nullable String id, String payload, Map<String, String> headers) {
    }

    /** The transport under test, connected to the broker the routes are on. */
    protected abstract MessageTransport transport();

    /** A new destination that delivers to something {@link #read} reads, empty. */
    protected abstract Route newRoute() throws Exception;

    /** A destination the broker cannot deliver to (no queue bound, no such topic). */
    protected abstract Route unroutable() throws Exception;

    /**
     * What arrived on {@code route}: waits up to {@code within} for {@code expected} messages, then a
     * little longer so that more than expected would show.
     */
    protected abstract List<Delivered> read(Route route, int expected, Duration within) throws Exception;

    /** How long a publish may take to be confirmed or to fail. */
    protected Duration confirmTimeout() {
        return Duration.ofSeconds(30);
    }

    private static final Map<String, String> HEADERS = headers();

    private static Map<String, String> headers() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("X-Request-ID", "req-contract");
        headers.put("tenant", "t1");
        return headers;
    }

    private static String newId(String what) {
        return what + "-" + UUID.randomUUID();
    }

    private static OutboxMessage message(String id, Route route, String payload) {
        return new OutboxMessage(id, route.exchange(), route.routingKey(), payload, HEADERS);
    }

    private void confirmed(CompletableFuture<Void> future) throws Exception {
        future.get(confirmTimeout().toMillis(), TimeUnit.MILLISECONDS);
    }

    @Test
    void aConfirmedMessageArrivesOnceWithItsIdPayloadAndHeaders() throws Exception {
        Route route = newRoute();
        String id = newId("paid");
        String payload = "{\"orderNo\":\"" + id + "\",\"note\":\"支付成功 ✓\"}";

        confirmed(transport().publish(message(id, route, payload)));

        List<Delivered> delivered = read(route, 1, Duration.ofSeconds(20));
        assertThat(delivered).hasSize(1);
        assertThat(delivered.get(0).id()).isEqualTo(id);
        assertThat(delivered.get(0).payload()).isEqualTo(payload);
        assertThat(delivered.get(0).headers()).containsAllEntriesOf(HEADERS);
    }

    @Test
    void aBatchIsAnsweredMessageByMessageAndEveryMessageArrives() throws Exception {
        Route route = newRoute();
        List<OutboxMessage> batch = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            batch.add(message(newId("batch-" + i), route, "{\"n\":" + i + "}"));
        }

        List<CompletableFuture<Void>> futures = transport().publishAll(batch);

        assertThat(futures).hasSameSizeAs(batch);
        for (CompletableFuture<Void> future : futures) {
            confirmed(future);
        }
        List<Delivered> delivered = read(route, batch.size(), Duration.ofSeconds(30));
        assertThat(delivered).extracting(Delivered::id)
                .containsExactlyInAnyOrderElementsOf(batch.stream().map(OutboxMessage::id).toList());
        assertThat(delivered).allSatisfy(d -> assertThat(d.headers()).containsAllEntriesOf(HEADERS));
    }

    @Test
    void aMessageTheBrokerCannotDeliverFails() throws Exception {
        Route nowhere = unroutable();

        CompletableFuture<Void> future = transport().publish(message(newId("lost"), nowhere, "{}"));

        assertThatThrownBy(() -> future.get(confirmTimeout().toMillis(), TimeUnit.MILLISECONDS))
                .as("the relay must not mark it sent").isInstanceOf(ExecutionException.class);
    }

    @Test
    void anUndeliverableMessageInABatchFailsAloneAndTheOthersArrive() throws Exception {
        Route route = newRoute();
        Route nowhere = unroutable();
        OutboxMessage first = message(newId("first"), route, "{\"n\":1}");
        OutboxMessage lost = message(newId("lost"), nowhere, "{\"n\":2}");
        OutboxMessage last = message(newId("last"), route, "{\"n\":3}");

        List<CompletableFuture<Void>> futures = transport().publishAll(List.of(first, lost, last));

        assertThat(futures).hasSize(3);
        confirmed(futures.get(0));
        confirmed(futures.get(2));
        assertThatThrownBy(() -> futures.get(1).get(confirmTimeout().toMillis(), TimeUnit.MILLISECONDS))
                .isInstanceOf(ExecutionException.class);
        assertThat(read(route, 2, Duration.ofSeconds(20))).extracting(Delivered::id)
                .containsExactlyInAnyOrder(first.id(), last.id());
    }

    @Test
    void aMessagePublishedTwiceArrivesTwiceWithOneId() throws Exception {
        Route route = newRoute();
        OutboxMessage message = message(newId("twice"), route, "{\"n\":1}");

        CompletableFuture<Void> once = transport().publish(message);
        CompletableFuture<Void> again = transport().publish(message);
        confirmed(once);
        confirmed(again);

        assertThat(read(route, 2, Duration.ofSeconds(20))).extracting(Delivered::id)
                .containsExactly(message.id(), message.id());
    }
}
