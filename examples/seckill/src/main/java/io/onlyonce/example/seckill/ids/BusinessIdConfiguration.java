package io.onlyonce.example.seckill.ids;

import io.onlyonce.example.seckill.SeckillProperties;
import java.time.Clock;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class BusinessIdConfiguration {

    private static final Logger log = LoggerFactory.getLogger(BusinessIdConfiguration.class);

    @Bean
    BusinessIdGenerator businessIdGenerator(SeckillProperties properties, Clock clock) {
        Optional<Integer> node = Optional.ofNullable(properties.ids().node());
        BusinessIdGenerator ids = new BusinessIdGenerator(node, clock);
        if (node.isPresent()) {
            log.info("business ids: node {} (seckill.ids.node)", ids.node());
        } else {
            log.info("business ids: random node {}; where several instances serve ids, give each its own"
                    + " seckill.ids.node (0-1023) so that theirs never collide", ids.node());
        }
        return ids;
    }
}
