package io.onlyonce.example.seckill.web;

import io.onlyonce.example.seckill.SeckillProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.LocaleResolver;
import org.springframework.core.Ordered;

/**
 * The servlet filters in front of everything: request id first, then the body size limit; the
 * content-coding check after Spring Security.
 */
@Configuration(proxyBeanMethods = false)
class WebConfiguration {

    @Bean
    FilterRegistrationBean<RequestIdFilter> requestIdFilter() {
        FilterRegistrationBean<RequestIdFilter> registration = new FilterRegistrationBean<>(new RequestIdFilter());
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
        return registration;
    }

    @Bean
    FilterRegistrationBean<BodyLimitFilter> bodyLimitFilter(SeckillProperties properties, ProblemWriter problems) {
        int limit = (int) Math.min(Integer.MAX_VALUE, properties.maxBodySize().toBytes());
        FilterRegistrationBean<BodyLimitFilter> registration = new FilterRegistrationBean<>(new BodyLimitFilter(limit, problems));
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
        return registration;
    }

    /** Named so that it replaces Spring MVC's default locale resolver. */
    @Bean
    LocaleResolver localeResolver() {
        return new FirewallSafeLocaleResolver();
    }

    /** After Spring Security's filters (-100), before the request window's (-95 and -90). */
    @Bean
    FilterRegistrationBean<ContentEncodingFilter> contentEncodingFilter(ProblemWriter problems) {
        FilterRegistrationBean<ContentEncodingFilter> registration = new FilterRegistrationBean<>(new ContentEncodingFilter(problems));
        registration.setOrder(-98);
        return registration;
    }
}
