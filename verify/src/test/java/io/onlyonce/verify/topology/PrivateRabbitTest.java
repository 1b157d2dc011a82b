package io.onlyonce.verify.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.MessageProperties;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrivateRabbitTest {

    @TempDir
    Path dir;

    private PrivateRabbit rabbit;

    @AfterEach
    void cleanUp() {
        if (rabbit != null) {
            rabbit.close();
        }
    }

    @Test
    void aDurableQueueKeepsItsPersistentMessageAcrossARestart() throws Exception {
        int port = Ports.free();
        rabbit = PrivateRabbit.start(dir, port, "verifytest" + port);
        assertThat(rabbit.node()).isEqualTo("verifytest" + port + "@localhost");
        try (Connection connection = rabbit.connectionFactory().newConnection()) {
            Channel channel = connection.createChannel();
            channel.queueDeclare("orders.paid", true, false, false, null);
            channel.confirmSelect();
            channel.basicPublish("", "orders.paid", MessageProperties.PERSISTENT_TEXT_PLAIN,
                    "o-1_paid".getBytes(StandardCharsets.UTF_8));
            channel.waitForConfirmsOrDie(5000);
        }
        assertThat(rabbit.messages("orders.paid")).isEqualTo(1);

        rabbit.restart();

        assertThat(rabbit.messages("orders.paid")).isEqualTo(1);
        assertThat(rabbit.messages("no.such.queue")).isZero();
        assertThat(rabbit.queues()).containsExactly("orders.paid");

        rabbit.stop();
        assertThatThrownBy(() -> rabbit.messages("orders.paid")).isInstanceOf(java.io.IOException.class);
    }
}
