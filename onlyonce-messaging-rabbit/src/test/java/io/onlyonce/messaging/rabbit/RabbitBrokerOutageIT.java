package io.onlyonce.messaging.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.messaging.OutboxMessage;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.rabbit.core.RabbitAdmin;

/**
 * The transport while the broker is stopped ({@code rabbitmqctl stop_app}) and after it is back.
 * This stops RabbitMQ for every user of the machine for a few seconds: it is the only test that
 * does, and it restores the broker in a finally block.
 */
class RabbitBrokerOutageIT {

    static ScratchVhost vhost;

    @BeforeAll
    static void setUp() {
        vhost = ScratchVhost.create("outage");
    }

    @AfterAll
    static void tearDown() {
        if (vhost != null) {
            vhost.close();
        }
    }

    @Test
    void aPublishFailsWhileTheBrokerIsStoppedAndTheNextOneAfterItsReturnSucceeds() throws Exception {
        RabbitAdmin admin = vhost.admin();
        RabbitTopology topology = RabbitTopology.forConsumer("outage.events", "order.*", "outage");
        topology.declare(admin);
        Duration timeout = Duration.ofSeconds(5);
        RabbitMessageTransport transport = new RabbitMessageTransport(vhost.confirmingTemplate(), timeout);
        transport.publish(message("before")).get(10, TimeUnit.SECONDS);

        CompletableFuture<Void> duringOutage;
        try {
            ScratchVhost.rabbitmqctl("stop_app");
            duringOutage = transport.publish(message("during"));
            // bounded by the confirm timeout: get() returns (exceptionally) well before 3 timeouts
            assertThatThrownBy(() -> duringOutage.get(timeout.toMillis() * 3, TimeUnit.MILLISECONDS))
                    .cause().isInstanceOfSatisfying(RabbitPublishException.class, e -> {
                        assertThat(e.reason()).isIn(RabbitPublishException.Reason.NOT_SENT,
                                RabbitPublishException.Reason.NACKED, RabbitPublishException.Reason.TIMED_OUT);
                        assertThat(e.messageId()).isEqualTo("during");
                    });
        } finally {
            ScratchVhost.rabbitmqctl("start_app");
            ScratchVhost.await("RabbitMQ answering on " + ScratchVhost.PORT, Duration.ofSeconds(60),
                    ScratchVhost::portAnswers);
        }

        ScratchVhost.await("a publish confirmed after the restart", Duration.ofSeconds(60), () -> {
            try {
                transport.publish(message("after")).get(10, TimeUnit.SECONDS);
                return true;
            } catch (Exception e) {
                return false; // the vhost may need a moment after the listener is back
            }
        });
        assertThat(admin.getQueueInfo(topology.queue()).getMessageCount()).isEqualTo(2);
    }

    private static OutboxMessage message(String id) {
        return new OutboxMessage(id, "outage.events", "order.paid", "{}", Map.of("X-Request-ID", "r-" + id));
    }
}
