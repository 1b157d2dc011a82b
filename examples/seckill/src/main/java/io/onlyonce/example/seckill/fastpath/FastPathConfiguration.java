package io.onlyonce.example.seckill.fastpath;

import io.micrometer.core.instrument.MeterRegistry;
import io.onlyonce.example.seckill.SeckillProperties;
import io.onlyonce.example.seckill.db.SqlDialect;
import io.onlyonce.example.seckill.message.OrderPaidOutbox;
import io.onlyonce.example.seckill.order.OrderNumbers;
import io.onlyonce.example.seckill.seckill.ActivityRepository;
import io.onlyonce.messaging.PermanentMessageFailure;
import io.onlyonce.spring.autoconfigure.OnlyOnceProperties;
import io.onlyonce.spring.dedup.DeferredWindow;
import io.onlyonce.spring.messaging.ConsumerDefinition;
import io.onlyonce.spring.messaging.TransactionalOutbox;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import io.onlyonce.spring.resilience.CircuitBreakerAtomicExecutor;
import java.time.Clock;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The flash-sale fast path, on with {@code seckill.fast-path.enabled=true} (the {@code redis}
 * profile): purchases decided in Redis ({@link Reservations}), the queue's consumers and the
 * reconciler ({@link ReservationConsumers}), units of cancelled orders back to Redis through the
 * outbox ({@link StockReturnOutbox}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "seckill.fast-path.enabled")
public class FastPathConfiguration {

    /** The consumer that gives cancelled orders' units back to the Redis stock. */
    public static final String STOCK_RETURN_CONSUMER = "seckill.fast-path.stock";

    @Bean
    RedisStock redisStock(StringRedisTemplate redis, SeckillProperties properties) {
        return new RedisStock(redis, properties.fastPath().keyPrefix());
    }

    @Bean
    ReservationRepository reservationRepository(JdbcClient jdbc, SqlDialect dialect) {
        return new ReservationRepository(jdbc, dialect);
    }

    @Bean
    ReservationWriter reservationWriter(ReservationRepository repository, OrderNumbers numbers,
            PlatformTransactionManager transactionManager, Clock clock) {
        TransactionTemplate transactions = new TransactionTemplate(transactionManager);
        transactions.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
        return new ReservationWriter(repository, numbers, transactions, clock);
    }

    @Bean
    StockReconciler stockReconciler(RedisStock stock, ReservationRepository repository, Clock clock,
            MeterRegistry registry) {
        return new StockReconciler(stock, repository, clock, registry);
    }

    @Bean(destroyMethod = "close")
    QueueMeters queueMeters(RedisStock stock, ReservationRepository repository, Clock clock, MeterRegistry registry,
            SeckillProperties properties) {
        return new QueueMeters(stock, repository, clock, registry, properties.fastPath().reconcileInterval());
    }

    @Bean
    ReservationConsumers reservationConsumers(RedisStock stock, ReservationWriter writer, StockReconciler reconciler,
            ReservationRepository repository, SeckillProperties properties, Clock clock, MeterRegistry registry) {
        return new ReservationConsumers(stock, writer, reconciler, repository, properties.fastPath(), clock, registry);
    }

    @Bean
    Reservations reservations(RedisStock stock, StockReconciler reconciler, ReservationRepository repository,
            ActivityRepository activities, SeckillProperties properties, Clock clock, MeterRegistry registry,
            OnlyOnceStatistics statistics, ObjectProvider<CircuitBreakerAtomicExecutor> atomic,
            OnlyOnceProperties onlyOnce, RedisConnectionFactory factory) {
        if (atomic.getIfAvailable() == null) {
            throw new IllegalStateException("seckill.fast-path.enabled needs onlyonce.store=redis (the redis profile): "
                    + "a purchase is decided in one Redis script with its token and record");
        }
        if (factory instanceof LettuceConnectionFactory lettuce && lettuce.isClusterAware()) {
            requireOneSlot(onlyOnce.redis().keyPrefix(), properties.fastPath().keyPrefix());
        }
        return new Reservations(stock, reconciler, repository, activities, properties, clock, registry, statistics);
    }

    /**
     * On a Redis Cluster one script touches one slot: the stores' keys (record, token, window) and
     * the sale's keys must then share a hash tag, given by both key prefixes.
     */
    static void requireOneSlot(String storePrefix, String fastPathPrefix) {
        String tag = hashTag(storePrefix);
        if (tag == null || !tag.equals(hashTag(fastPathPrefix))) {
            throw new IllegalStateException("on a Redis Cluster, seckill.fast-path.enabled needs onlyonce.redis.key-prefix ("
                    + storePrefix + ") and seckill.fast-path.key-prefix (" + fastPathPrefix + ") to start with the same"
                    + " hash tag, such as {seckill}oo: and {seckill}fast: (a purchase is one script over both)");
        }
    }

    /** The key's hash tag as Redis Cluster reads it: the text between the first '{' and the next '}', if not empty. */
    static @Nullable String hashTag(String key) {
        int open = key.indexOf('{');
        int close = open < 0 ? -1 : key.indexOf('}', open + 1);
        return close > open + 1 ? key.substring(open + 1, close) : null;
    }

    /** A purchase checks its request window in its own script call (the other requests of the rule as before). */
    @Bean
    DeferredWindow.Deferral purchaseWindowInScript() {
        return request -> "POST".equals(request.getMethod()) && FastPathOrderController.PURCHASE
                .matcher(request.getRequestURI()).matches();
    }

    @Bean
    StockReturnOutbox stockReturnOutbox(TransactionalOutbox outbox, JsonMapper json,
            @Value("${" + OrderPaidOutbox.EXCHANGE_PROPERTY + ":" + OrderPaidOutbox.EXCHANGE + "}") String exchange) {
        return new StockReturnOutbox(outbox, json, exchange);
    }

    /** Gives a cancelled order's units back to the Redis stock: once per order, however often the message comes. */
    @Bean
    ConsumerDefinition stockReturnConsumer(JsonMapper json, RedisStock stock, MeterRegistry registry,
            @Value("${" + OrderPaidOutbox.EXCHANGE_PROPERTY + ":" + OrderPaidOutbox.EXCHANGE + "}") String exchange) {
        return ConsumerDefinition.of(STOCK_RETURN_CONSUMER, exchange, StockReturnOutbox.STOCK_RETURNED,
                (message, connection) -> {
                    StockReturnOutbox.StockReturned returned;
                    try {
                        returned = json.readValue(message.payload(), StockReturnOutbox.StockReturned.class);
                    } catch (JacksonException e) {
                        throw new PermanentMessageFailure("not a stock-returned message: unreadable JSON", e);
                    }
                    if (returned == null || returned.orderNo() == null || returned.businessId() == null) {
                        throw new PermanentMessageFailure("not a stock-returned message");
                    }
                    String reservation = returned.businessId().startsWith("rsv_") ? returned.businessId().substring(4) : "";
                    long given = stock.giveBack(returned.activityId(), returned.orderNo(), returned.productId(),
                            returned.quantity(), returned.userId(), reservation);
                    registry.counter("seckill.fastpath.units.returned", "cause", "cancelled-order").increment(Math.max(given, 0));
                });
    }
}
