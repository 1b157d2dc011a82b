package io.onlyonce.example.seckill.limits;

import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

@Configuration(proxyBeanMethods = false)
class LimitsWebConfiguration implements WebMvcConfigurer {

    private final RequestRates rates;

    LimitsWebConfiguration(RequestRates rates) {
        this.rates = rates;
    }

    @Override
    public void addInterceptors(InterceptorRegistry registry) {
        registry.addInterceptor(new RateLimitInterceptor(rates))
                .addPathPatterns(RateLimitInterceptor.ROUTES.keySet().toArray(String[]::new))
                .order(Ordered.HIGHEST_PRECEDENCE);
    }
}
