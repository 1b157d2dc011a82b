package io.onlyonce.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** AMQP topic-pattern semantics on message types. */
class TopicPatternTest {

    @Test
    void starIsOneWordHashIsZeroOrMore() {
        assertThat(TopicPattern.of("#").matches("")).isTrue();
        assertThat(TopicPattern.of("#").matches("order.paid")).isTrue();
        assertThat(TopicPattern.of("order.*").matches("order.paid")).isTrue();
        assertThat(TopicPattern.of("order.*").matches("order")).isFalse();
        assertThat(TopicPattern.of("order.*").matches("order.paid.late")).isFalse();
        assertThat(TopicPattern.of("order.#").matches("order")).isTrue();
        assertThat(TopicPattern.of("order.#").matches("order.paid.late")).isTrue();
        assertThat(TopicPattern.of("*.paid").matches("order.paid")).isTrue();
        assertThat(TopicPattern.of("#.paid").matches("a.b.paid")).isTrue();
        assertThat(TopicPattern.of("#.paid").matches("paid")).isTrue();
        assertThat(TopicPattern.of("order.paid").matches("order.paid")).isTrue();
        assertThat(TopicPattern.of("order.paid").matches("order.created")).isFalse();
        assertThat(TopicPattern.of("*").matches("")).isFalse();
        assertThat(TopicPattern.of("a.#.z").matches("a.z")).isTrue();
        assertThat(TopicPattern.of("a.#.z").matches("a.b.c.z")).isTrue();
        assertThat(TopicPattern.of("a.#.z").matches("a.b.c")).isFalse();
        assertThatThrownBy(() -> TopicPattern.of("")).isInstanceOf(IllegalArgumentException.class);
    }
}
