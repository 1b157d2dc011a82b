package io.onlyonce.bench.peers;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A topic of {@value #PARTITIONS} partitions of its own, created with the Admin client (the broker
 * creates none automatically) and deleted at the end; the plain consumer is one
 * {@link KafkaConsumer} assigned every partition from the beginning (no group, read_uncommitted).
 */
final class KafkaDestination implements Destination {

    static final int PARTITIONS = 4;

    private final String bootstrap;
    private final String topic;
    private final Admin admin;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicReference<Throwable> crash = new AtomicReference<>();
    private Thread consumer;

    KafkaDestination(String bootstrap, String topic) throws Exception {
        this.bootstrap = bootstrap;
        this.topic = topic;
        Map<String, Object> config = new HashMap<>();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        this.admin = Admin.create(config);
        admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }

    @Override
    public String broker() {
        return "kafka";
    }

    @Override
    public String name() {
        return topic;
    }

    @Override
    public void consume(Receipts receipts) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10);
        KafkaConsumer<byte[], byte[]> kafka = new KafkaConsumer<>(config);
        List<TopicPartition> partitions = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            partitions.add(new TopicPartition(topic, p));
        }
        kafka.assign(partitions);
        kafka.seekToBeginning(partitions);
        consumer = new Thread(() -> {
            try (kafka) {
                while (running.get()) {
                    for (ConsumerRecord<byte[], byte[]> record : kafka.poll(Duration.ofMillis(50))) {
                        receipts.receive(OrderPlaced.seqOf(record.value()));
                    }
                }
            } catch (Throwable e) {
                crash.compareAndSet(null, e);
            }
        }, "peers-kafka-consumer");
        consumer.setDaemon(true);
        consumer.start();
    }

    /** Fails when the consumer thread died. */
    void check() {
        if (crash.get() != null) {
            throw new IllegalStateException("kafka consumer failed", crash.get());
        }
    }

    @Override
    public RawPublisher rawPublisher() {
        // the same producer settings as the existing messaging bench's raw publish (KafkaSide)
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        KafkaProducer<String, byte[]> producer = new KafkaProducer<>(config);
        LongAdder sent = new LongAdder();
        LongAdder acked = new LongAdder();
        AtomicReference<Exception> failure = new AtomicReference<>();
        return new RawPublisher() {
            @Override
            public void publish(OrderPlaced event) {
                sent.increment();
                producer.send(new ProducerRecord<>(topic, event.orderId(), event.json().getBytes(StandardCharsets.UTF_8)),
                        (metadata, error) -> {
                            if (error == null) {
                                acked.increment();
                            } else {
                                failure.compareAndSet(null, error);
                            }
                        });
            }

            @Override
            public void awaitAcks() throws Exception {
                producer.flush();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (acked.sum() < sent.sum() && failure.get() == null && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                if (failure.get() != null || acked.sum() < sent.sum()) {
                    throw new IllegalStateException(acked.sum() + " of " + sent.sum() + " acknowledged", failure.get());
                }
            }

            @Override
            public void close() {
                producer.close();
            }
        };
    }

    @Override
    public void close() throws Exception {
        running.set(false);
        if (consumer != null) {
            consumer.join(5_000);
        }
        try {
            admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
        } finally {
            admin.close();
        }
    }
}
