package io.onlyonce.messaging.kafka;

import io.onlyonce.messaging.DeadLetterMarks;
import io.onlyonce.messaging.MessageConsumer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jspecify.annotations.Nullable;

/**
 * Puts a {@link MessageConsumer} (the {@link io.onlyonce.messaging.IdempotentConsumer} with its
 * inbox) on a Kafka topic, in a consumer group, and commits a record's offset only once its outcome
 * is final.
 *
 * <table>
 *   <caption>what happens to a record</caption>
 *   <tr><th>record or outcome</th><th>then</th></tr>
 *   <tr><td>its {@code message-type} header does not match {@link Builder#messageTypes}</td><td>skipped (counted), committed</td></tr>
 *   <tr><td>no {@code message-id} header, a malformed one (not 1 to 255 visible ASCII), a value that is not UTF-8</td>
 *       <td>dead-lettered without calling the consumer</td></tr>
 *   <tr><td>PROCESSED, DUPLICATE</td><td>committed</td></tr>
 *   <tr><td>DEAD_LETTER(reason)</td><td>published to the dead-letter topic with the {@link KafkaDeadLetterHeaders},
 *       committed at once after the broker acknowledged that publish; with {@link Builder#deadLetterMarks},
 *       marked before the commit, and not published again when the group's mark says it was</td></tr>
 *   <tr><td>RETRY(reason)</td><td>the partition is sought back to the record and paused for
 *       {@link Builder#retryDelay} (the other partitions go on); the {@link Builder#maxDeliveries}-th
 *       delivery is dead-lettered "retries exhausted after N deliveries: reason"</td></tr>
 * </table>
 *
 * <p>Records of one partition are handled in order, one at a time; a record that cannot be
 * processed reaches the dead-letter topic after at most {@code maxDeliveries} deliveries, so it never
 * blocks the partition behind it. A dead-letter publish that fails is a retry of the record: nothing is
 * lost. Offsets are committed with {@code commitSync} after each poll's records, after each dead
 * letter and when partitions are revoked; a crash before a commit delivers the records again, and the
 * inbox drops those that were processed. A crash after a dead letter was acknowledged and before its
 * offset was committed delivers that record again too: without {@link Builder#deadLetterMarks} it is
 * published to the dead-letter topic a second time; with them it is not. Deliveries are counted per partition and offset in memory (forgotten when a
 * partition moves to another thread or instance: each owner bounds its own retries).
 *
 * <p>Consumer settings forced: {@code enable.auto.commit=false}, String and byte-array deserializers,
 * {@code isolation.level=read_committed}, the group id; {@code auto.offset.reset} is {@code earliest}
 * unless set. Each of {@link Builder#threads} threads runs its own {@code KafkaConsumer} in the group;
 * a {@code group.instance.id} in the settings (static membership: a consumer restarted with the same
 * id gets its partitions back at once, without waiting out the session timeout of the member it
 * replaces) becomes {@code <id>-<thread>}, 1 for the first, so it must be unique per instance of the
 * application and stable across its restarts.
 */
public final class IdempotentKafkaConsumer implements AutoCloseable {

    /** The default of {@link Builder#maxDeliveries}: 5. */
    public static final int DEFAULT_MAX_DELIVERIES = 5;
    /** The default of {@link Builder#retryDelay}: 1 second. */
    public static final Duration DEFAULT_RETRY_DELAY = Duration.ofSeconds(1);
    /** How long a dead-letter publish waits for the broker's acknowledgement: 10 seconds. */
    public static final Duration DEAD_LETTER_TIMEOUT = Duration.ofSeconds(10);

    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    private final MessageConsumer consumer;
    private final String topic;
    private final String groupId;
    private final String deadLetterTopic;
    private final int threads;
    private final Clock clock;
    private final Map<String, Object> consumerConfig;
    private final Map<String, Object> producerConfig;
    private final ConsumerWorker.Settings settings;
    private final Counters counters = new Counters();
    private final List<ConsumerWorker> workers = new ArrayList<>();
    private final List<Thread> running = new ArrayList<>();
    private @Nullable Producer<String, byte[]> deadLetterProducer;
    private boolean closed;

    private IdempotentKafkaConsumer(Builder builder) {
        this.consumer = builder.consumer;
        this.topic = Objects.requireNonNull(builder.topic, "a topic is required: topic(String)");
        if (topic.isEmpty()) {
            throw new IllegalArgumentException("the topic must not be empty");
        }
        Object configuredGroup = builder.consumerConfig.get(ConsumerConfig.GROUP_ID_CONFIG);
        this.groupId = builder.groupId != null ? builder.groupId
                : configuredGroup != null ? configuredGroup.toString() : consumer.name();
        this.deadLetterTopic = builder.deadLetterTopic != null ? builder.deadLetterTopic : KafkaTopics.deadLetterTopicOf(topic);
        this.threads = builder.threads;
        this.clock = builder.clock;
        Map<String, Object> config = new HashMap<>(builder.consumerConfig);
        DeadLetterMarks marks = builder.deadLetterMarks;
        this.settings = new ConsumerWorker.Settings(topic, TopicPattern.of(builder.messageTypes), consumer,
                builder.maxDeliveries, builder.retryDelay, builder.onOwnDeadLetter, marks,
                marks == null ? null : new DeadLetterLookup(config, DEAD_LETTER_TIMEOUT));
        config.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        this.consumerConfig = Map.copyOf(config);
        this.producerConfig = ProducerSettings.of(builder.producerConfig, DEAD_LETTER_TIMEOUT); // refuses weak settings now
    }

    /**
     * A builder of the consumer that hands records to {@code consumer}.
     *
     * @param consumer the idempotent consumer; its name is the default group id and is written into dead letters
     * @param consumerConfig the Kafka consumer's settings ({@code bootstrap.servers}, security, {@code max.poll.records}, ...)
     * @param producerConfig the settings of the producer of dead letters ({@code bootstrap.servers}, ...);
     *     {@code acks=all} and idempotence are forced, weaker values refused
     * @return the builder
     */
    public static Builder builder(MessageConsumer consumer, Map<String, Object> consumerConfig,
            Map<String, Object> producerConfig) {
        return new Builder(consumer, consumerConfig, producerConfig);
    }

    /**
     * Starts the threads, each subscribing its own Kafka consumer to the topic. Does nothing when running.
     *
     * @throws IllegalStateException when closed
     * @throws org.apache.kafka.common.KafkaException when a Kafka client cannot be built from the settings
     */
    public synchronized void start() {
        if (closed) {
            throw new IllegalStateException("the consumer is closed");
        }
        if (!running.isEmpty()) {
            return;
        }
        if (deadLetterProducer == null) {
            deadLetterProducer = new KafkaProducer<>(producerConfig);
        }
        DeadLetterPublisher deadLetters = new DeadLetterPublisher(deadLetterProducer, deadLetterTopic, consumer.name(),
                DEAD_LETTER_TIMEOUT.toMillis(), clock);
        List<KafkaConsumer<String, byte[]>> clients = new ArrayList<>(threads);
        try {
            for (int i = 0; i < threads; i++) {
                clients.add(new KafkaConsumer<>(threadConfig(consumerConfig, i + 1)));
            }
        } catch (RuntimeException e) {
            clients.forEach(client -> client.close(Duration.ZERO));
            throw e;
        }
        for (int i = 0; i < threads; i++) {
            ConsumerWorker worker = new ConsumerWorker(clients.get(i), settings, counters, deadLetters);
            workers.add(worker);
            running.add(new Thread(worker, "onlyonce-kafka-" + consumer.name() + "-" + (i + 1)));
        }
        running.forEach(Thread::start);
    }

    /**
     * The settings of thread {@code thread}'s Kafka consumer: {@code group.instance.id}, when set,
     * with {@code -<thread>} appended, since each member of a group needs its own.
     */
    static Map<String, Object> threadConfig(Map<String, Object> config, int thread) {
        Object instance = config.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        if (instance == null || instance.toString().isBlank()) {
            return config;
        }
        Map<String, Object> own = new HashMap<>(config);
        own.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instance.toString().trim() + "-" + thread);
        return own;
    }

    /**
     * Stops the threads: each finishes the record in hand, commits the offsets of the records whose
     * outcome is final and closes its Kafka consumer; the others are delivered again to whoever
     * consumes the partition next. {@link #start()} may be called again.
     */
    public synchronized void stop() {
        workers.forEach(ConsumerWorker::stop);
        long deadline = System.nanoTime() + STOP_TIMEOUT.toNanos();
        boolean interrupted = false;
        for (Thread thread : running) {
            try {
                thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        workers.clear();
        running.clear();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether the threads run. @return true between {@link #start()} and {@link #stop()} */
    public synchronized boolean isRunning() {
        return !running.isEmpty();
    }

    /** Stops the threads and closes the dead-letter producer; the consumer cannot be started again. */
    @Override
    public synchronized void close() {
        stop();
        closed = true;
        if (deadLetterProducer != null) {
            deadLetterProducer.close(DEAD_LETTER_TIMEOUT);
            deadLetterProducer = null;
        }
    }

    /**
     * The counts since the consumer was built.
     *
     * @return processed, duplicates, skipped, dead-lettered, retried, rebalances
     */
    public KafkaConsumerStats stats() {
        return counters.snapshot();
    }

    /**
     * The topic consumed.
     *
     * @return its name
     */
    public String topic() {
        return topic;
    }

    /**
     * The consumer group.
     *
     * @return the group id
     */
    public String groupId() {
        return groupId;
    }

    /**
     * Where dead letters go.
     *
     * @return the dead-letter topic
     */
    public String deadLetterTopic() {
        return deadLetterTopic;
    }

    @Override
    public String toString() {
        return "IdempotentKafkaConsumer[" + consumer.name() + " on " + topic + ", group " + groupId + "]";
    }

    /** Builds an {@link IdempotentKafkaConsumer}; obtained from {@link IdempotentKafkaConsumer#builder}. */
    public static final class Builder {

        private final MessageConsumer consumer;
        private final Map<String, Object> consumerConfig;
        private final Map<String, Object> producerConfig;
        private @Nullable String topic;
        private String messageTypes = "#";
        private @Nullable String groupId;
        private @Nullable String deadLetterTopic;
        private int maxDeliveries = DEFAULT_MAX_DELIVERIES;
        private Duration retryDelay = DEFAULT_RETRY_DELAY;
        private int threads = 1;
        private Clock clock = Clock.systemUTC();
        private java.util.function.Consumer<String> onOwnDeadLetter = reason -> { };
        private @Nullable DeadLetterMarks deadLetterMarks;

        private Builder(MessageConsumer consumer, Map<String, Object> consumerConfig, Map<String, Object> producerConfig) {
            this.consumer = Objects.requireNonNull(consumer, "consumer");
            this.consumerConfig = new HashMap<>(Objects.requireNonNull(consumerConfig, "consumerConfig"));
            this.producerConfig = new HashMap<>(Objects.requireNonNull(producerConfig, "producerConfig"));
        }

        /**
         * The topic to consume (required).
         *
         * @param topic its name
         * @return this builder
         */
        public Builder topic(String topic) {
            this.topic = Objects.requireNonNull(topic, "topic");
            return this;
        }

        /**
         * The message types to process, an AMQP topic pattern on the {@code message-type} header:
         * {@code *} one word, {@code #} zero or more; default {@code #} (all). Other records are skipped.
         *
         * @param pattern for example {@code order.*}
         * @return this builder
         */
        public Builder messageTypes(String pattern) {
            TopicPattern.of(pattern);
            this.messageTypes = pattern;
            return this;
        }

        /**
         * The consumer group; default the {@code group.id} of the consumer settings, else the consumer's name.
         *
         * @param groupId the group id
         * @return this builder
         */
        public Builder groupId(String groupId) {
            this.groupId = Objects.requireNonNull(groupId, "groupId");
            return this;
        }

        /**
         * Where dead letters go; default {@code <topic>.DLT}. The topic must exist.
         *
         * @param deadLetterTopic the dead-letter topic
         * @return this builder
         */
        public Builder deadLetterTopic(String deadLetterTopic) {
            this.deadLetterTopic = Objects.requireNonNull(deadLetterTopic, "deadLetterTopic");
            return this;
        }

        /**
         * The delivery of a record that keeps being retried which dead-letters it; default 5.
         *
         * @param maxDeliveries at least 1
         * @return this builder
         */
        public Builder maxDeliveries(int maxDeliveries) {
            if (maxDeliveries < 1) {
                throw new IllegalArgumentException("maxDeliveries must be at least 1, was " + maxDeliveries);
            }
            this.maxDeliveries = maxDeliveries;
            return this;
        }

        /**
         * How long a partition pauses before a retried record is delivered again; default 1 second.
         *
         * @param retryDelay zero or more
         * @return this builder
         */
        public Builder retryDelay(Duration retryDelay) {
            Objects.requireNonNull(retryDelay, "retryDelay");
            if (retryDelay.isNegative()) {
                throw new IllegalArgumentException("retryDelay must not be negative, was " + retryDelay);
            }
            this.retryDelay = retryDelay;
            return this;
        }

        /**
         * The threads, each with its own Kafka consumer in the group; default 1. More threads than
         * partitions leave some idle.
         *
         * @param threads at least 1
         * @return this builder
         */
        public Builder threads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("threads must be at least 1, was " + threads);
            }
            this.threads = threads;
            return this;
        }

        /**
         * Told, with the reason, of each record this consumer dead-letters without its
         * {@link MessageConsumer} having answered DEAD_LETTER: a payload that is not UTF-8, a record
         * still to be retried on its last delivery ({@link #maxDeliveries}). What the consumer
         * dead-letters it counts itself. Called on the polling thread once the dead letter is
         * acknowledged; must not throw.
         *
         * @param listener the listener
         * @return this builder
         */
        public Builder onOwnDeadLetter(java.util.function.Consumer<String> listener) {
            this.onOwnDeadLetter = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Where the consumer's dead letters are marked, so that a record delivered again after its
         * dead letter was acknowledged (a consumer killed before it committed the offset) is not
         * published to the dead-letter topic a second time, with or without a message id; default
         * none. The marks are rows of the inbox table ({@link DeadLetterMarks}, under the consumer's
         * name): pass the data source of the consumer's inbox. Each dead letter costs one INSERT
         * before it is published; a record found marked already (delivered again after a crash, or
         * after a publish that failed) is published only when a {@link DeadLetterLookup} on the
         * consumer settings does not find its dead letter on the topic. Records that are not
         * dead-lettered cost nothing. The record delivered again still goes to the consumer
         * (whose inbox drops it if it was processed); only when it ends dead-lettered again does the
         * mark keep it off the dead-letter topic.
         *
         * @param marks the marks
         * @return this builder
         */
        public Builder deadLetterMarks(DeadLetterMarks marks) {
            this.deadLetterMarks = Objects.requireNonNull(marks, "marks");
            return this;
        }

        /**
         * The clock of the dead-at header; default the system clock in UTC.
         *
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * The consumer, not started.
         *
         * @return the consumer
         * @throws NullPointerException when no topic was given
         * @throws IllegalArgumentException when the producer settings are weaker than {@code acks=all} with idempotence
         */
        public IdempotentKafkaConsumer build() {
            return new IdempotentKafkaConsumer(this);
        }
    }
}
