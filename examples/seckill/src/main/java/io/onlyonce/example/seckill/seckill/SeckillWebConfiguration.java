package io.onlyonce.example.seckill.seckill;

import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class SeckillWebConfiguration {

    /** Order of {@link DedupKeyFilter}: after Spring Security's firewall (-100), before the starter's de-dup filter (-90). */
    static final int DEDUP_KEY_FILTER_ORDER = -95;

    @Bean
    FilterRegistrationBean<DedupKeyFilter> dedupKeyFilter(ActivityRepository activities) {
        FilterRegistrationBean<DedupKeyFilter> registration = new FilterRegistrationBean<>(new DedupKeyFilter(activities));
        registration.setOrder(DEDUP_KEY_FILTER_ORDER);
        return registration;
    }
}
