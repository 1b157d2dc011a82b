package io.onlyonce.messaging.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Creates the topics of the message layer on a broker that creates none automatically: a topic,
 * or a topic and its dead-letter topic ({@code <topic>.DLT}). A topic that exists already is left as
 * it is (its partition count is not checked).
 */
public final class KafkaTopics implements AutoCloseable {

    /** The suffix of a dead-letter topic: {@value}. */
    public static final String DEAD_LETTER_SUFFIX = ".DLT";

    /** How long {@link #ensure} waits for the broker by default: 30 seconds. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private final Admin admin;
    private final boolean ownsAdmin;
    private final Duration timeout;

    /**
     * Topics on the caller's admin client, which {@link #close()} leaves open.
     *
     * @param admin the admin client
     */
    public KafkaTopics(Admin admin) {
        this(admin, DEFAULT_TIMEOUT, false);
    }

    /**
     * Topics on the caller's admin client, which {@link #close()} leaves open.
     *
     * @param admin the admin client
     * @param timeout how long a creation may take
     */
    public KafkaTopics(Admin admin, Duration timeout) {
        this(admin, timeout, false);
    }

    private KafkaTopics(Admin admin, Duration timeout, boolean ownsAdmin) {
        this.admin = Objects.requireNonNull(admin, "admin");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the timeout must be positive, was " + timeout);
        }
        this.ownsAdmin = ownsAdmin;
    }

    /**
     * Topics on an admin client of its own, closed by {@link #close()}.
     *
     * @param adminConfig the admin client's settings ({@code bootstrap.servers}, security, ...)
     * @return the helper
     */
    public static KafkaTopics create(Map<String, Object> adminConfig) {
        return new KafkaTopics(Admin.create(adminConfig), DEFAULT_TIMEOUT, true);
    }

    /**
     * The dead-letter topic of {@code topic}.
     *
     * @param topic a topic
     * @return {@code topic + ".DLT"}
     */
    public static String deadLetterTopicOf(String topic) {
        return topic + DEAD_LETTER_SUFFIX;
    }

    /**
     * Creates {@code topic} unless it exists.
     *
     * @param topic the topic
     * @param partitions its partitions
     * @param replication its replication factor
     * @return whether it was created now (false: it existed)
     * @throws IllegalStateException when the broker refused or did not answer in time
     */
    public boolean ensure(String topic, int partitions, short replication) {
        Objects.requireNonNull(topic, "topic");
        try {
            admin.createTopics(List.of(new NewTopic(topic, partitions, replication))).all()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicExistsException) {
                return false;
            }
            throw new IllegalStateException("could not create topic '" + topic + "': " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("could not create topic '" + topic + "' within " + timeout, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic '" + topic + "'", e);
        }
    }

    /**
     * Creates {@code topic} and its dead-letter topic {@code topic + ".DLT"} (with the same
     * partitions and replication), each unless it exists.
     *
     * @param topic the topic
     * @param partitions the partitions of each
     * @param replication the replication factor of each
     * @return the dead-letter topic's name
     * @throws IllegalStateException when the broker refused or did not answer in time
     */
    public String ensureWithDeadLetter(String topic, int partitions, short replication) {
        ensure(topic, partitions, replication);
        String deadLetters = deadLetterTopicOf(topic);
        ensure(deadLetters, partitions, replication);
        return deadLetters;
    }

    /** Closes the admin client when this helper created it ({@link #create}). */
    @Override
    public void close() {
        if (ownsAdmin) {
            admin.close(timeout);
        }
    }
}
