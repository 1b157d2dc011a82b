package io.onlyonce.example.seckill.order;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** Today's {@link OrderEvents}: a log line. The outbox writer replaces it. */
@Component
public class LoggingOrderEvents implements OrderEvents {

    private static final Logger log = LoggerFactory.getLogger(LoggingOrderEvents.class);

    @Override
    public void orderPaid(OrderPaid event) {
        log.info("order paid: orderNo={} amount={} tradeNo={} messageId={}", event.orderNo(), event.amount(),
                event.tradeNo(), event.messageId());
    }
}
