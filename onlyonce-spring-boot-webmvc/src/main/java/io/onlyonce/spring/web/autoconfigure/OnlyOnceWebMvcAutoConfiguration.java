package io.onlyonce.spring.web.autoconfigure;

import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.onlyonce.engine.IdempotencyEngine;
import io.onlyonce.spring.Idempotent;
import io.onlyonce.spring.PrincipalResolver;
import io.onlyonce.spring.http.DedupRules;
import io.onlyonce.spring.dedup.DeferredWindow;
import io.onlyonce.spring.dedup.RequestDedupFilter;
import io.onlyonce.spring.method.CallerPrincipal;
import io.onlyonce.spring.method.MethodSettings;
import io.onlyonce.spring.method.ObservedDurations;
import io.onlyonce.spring.autoconfigure.PrincipalRequiredCheck;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import io.onlyonce.spring.web.AcceptCheck;
import io.onlyonce.spring.web.IdempotentMethodInterceptor;
import io.onlyonce.spring.web.OnlyOnceExceptionHandler;
import io.onlyonce.spring.web.OnlyOnceFilter;
import io.onlyonce.spring.http.OnlyOnceProblems;
import io.onlyonce.spring.web.OnlyOnceRefusals;
import io.onlyonce.spring.web.ServletPrincipalResolver;
import io.onlyonce.spring.web.TokenEndpoint;
import io.onlyonce.spring.web.TokenHandlerInterceptor;
import io.onlyonce.spring.http.TokenLimits;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.token.TokenService;
import io.onlyonce.window.WindowStore;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.ServletRequestListener;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationContext;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.servlet.ServletListenerRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import io.onlyonce.spring.atomic.AtomicIdempotencyArgumentResolver;
import io.onlyonce.spring.autoconfigure.OnlyOnceAutoConfiguration;
import io.onlyonce.spring.autoconfigure.OnlyOnceProperties;
import io.onlyonce.spring.autoconfigure.TokenSigning;
import io.onlyonce.spring.resilience.CircuitBreakerAtomicExecutor;
import io.onlyonce.spring.web.RequestStoreBudgetFilter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.core.Ordered;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.web.accept.ContentNegotiationManager;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

/**
 * The Spring MVC side: the {@code @Idempotent} advisor and its interceptors, the capturing filter,
 * problem details, the token endpoint, the start-up check and the optional de-dup filter.
 */
@AutoConfiguration(after = OnlyOnceAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "onlyonce.enabled", matchIfMissing = true)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
public class OnlyOnceWebMvcAutoConfiguration {

    /** Order of the de-dup filter: just after Spring Security's chain (-100), so the principal is known. */
    static final int DEDUP_FILTER_ORDER = -90;
    /** Order of the capturing filter. */
    static final int ONLYONCE_FILTER_ORDER = -80;

    @Bean
    @ConditionalOnMissingBean
    PrincipalResolver onlyOncePrincipalResolver() {
        return new ServletPrincipalResolver();
    }

    /**
     * Warns at start-up when {@code onlyonce.principal-required} would refuse every request to the
     * {@code @Idempotent} handlers: no Spring Security and no {@link PrincipalResolver} of the application's.
     */
    @Bean
    @ConditionalOnMissingBean(name = "onlyOncePrincipalRequiredCheck")
    SmartInitializingSingleton onlyOncePrincipalRequiredCheck(OnlyOnceProperties properties, PrincipalResolver principals,
            ApplicationContext context) {
        return () -> PrincipalRequiredCheck.warnIfAnonymous(context, properties.principalRequired(),
                !(principals instanceof ServletPrincipalResolver), "PrincipalResolver", List.of());
    }

    @Bean
    @ConditionalOnMissingBean
    OnlyOnceProblems onlyOnceProblems(OnlyOnceProperties properties) {
        return new OnlyOnceProblems(properties.problemTypeBase());
    }

    @Bean
    @ConditionalOnMissingBean
    OnlyOnceExceptionHandler onlyOnceExceptionHandler(OnlyOnceProblems problems, OnlyOnceProperties properties) {
        return new OnlyOnceExceptionHandler(problems, properties.key().unavailableRetryAfter());
    }

    @Bean
    @ConditionalOnMissingBean(name = "onlyOnceFilter")
    FilterRegistrationBean<OnlyOnceFilter> onlyOnceFilter(OnlyOnceProperties properties, OnlyOnceProblems problems) {
        FilterRegistrationBean<OnlyOnceFilter> registration =
                new FilterRegistrationBean<>(new OnlyOnceFilter(properties.key().maxBodySize().toBytes(), problems));
        registration.setOrder(ONLYONCE_FILTER_ORDER);
        registration.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.ASYNC, DispatcherType.ERROR);
        return registration;
    }

    /** Releases the key of a protected request that ended without a recorded answer. */
    @Bean
    @ConditionalOnMissingBean(name = "onlyOnceRequestListener")
    ServletListenerRegistrationBean<ServletRequestListener> onlyOnceRequestListener() {
        return new ServletListenerRegistrationBean<>(OnlyOnceFilter.requestListener());
    }

    @Bean
    @ConditionalOnMissingBean
    IdempotentMethodInterceptor onlyOnceMethodInterceptor(IdempotencyEngine engine, ObjectProvider<IdempotencyStore> stores,
            TokenService tokens, PrincipalResolver principals, MethodSettings.Factory settings,
            OnlyOnceStatistics statistics, OnlyOnceProperties properties, ObservedDurations durations) {
        IdempotencyStore store = OnlyOnceAutoConfiguration.requireStore(stores, IdempotencyStore.class, properties);
        return new IdempotentMethodInterceptor(engine, store, tokens, principals, settings, statistics,
                properties.principalRequired(), properties.key().header(), durations);
    }

    /**
     * The caller of an {@code @Idempotent} service method: the current request's principal (as the
     * {@link PrincipalResolver} names it), else Spring Security's context, else none.
     */
    @Bean
    @ConditionalOnMissingBean
    CallerPrincipal onlyOnceCallerPrincipal(PrincipalResolver principals) {
        CallerPrincipal security = CallerPrincipal.fromSecurityContext();
        return () -> {
            if (RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes servlet) {
                String name = principals.resolve(servlet.getRequest());
                if (name != null) {
                    return name;
                }
            }
            return security.current();
        };
    }

    @Bean
    @ConditionalOnMissingBean
    TokenHandlerInterceptor onlyOnceTokenInterceptor(TokenService tokens, PrincipalResolver principals,
            OnlyOnceStatistics statistics, OnlyOnceProperties properties) {
        return new TokenHandlerInterceptor(tokens, principals, statistics, properties.token().header(),
                properties.principalRequired());
    }

    /**
     * The 406 decided before an {@code @Idempotent} method runs, with the converters and the content
     * negotiation of Spring MVC itself (looked up at the first request: they are made after the
     * configurers).
     */
    @Bean
    @ConditionalOnMissingBean
    AcceptCheck onlyOnceAcceptCheck(ObjectProvider<RequestMappingHandlerAdapter> adapters,
            @Qualifier("mvcContentNegotiationManager") ObjectProvider<ContentNegotiationManager> negotiation,
            OnlyOnceStatistics statistics) {
        return new AcceptCheck(
                () -> {
                    RequestMappingHandlerAdapter adapter = adapters.getIfUnique();
                    return adapter == null ? List.of() : adapter.getMessageConverters();
                },
                SingletonSupplier.of(() -> negotiation.getIfAvailable(ContentNegotiationManager::new)),
                statistics);
    }

    @Bean
    @ConditionalOnMissingBean(name = "onlyOnceWebMvcConfigurer")
    WebMvcConfigurer onlyOnceWebMvcConfigurer(AcceptCheck acceptCheck, TokenHandlerInterceptor tokenInterceptor,
            OnlyOnceProperties properties) {
        return new WebMvcConfigurer() {
            @Override
            public void addInterceptors(InterceptorRegistry registry) {
                // a 406 first, as a mapping's produces would answer it before any interceptor
                registry.addInterceptor(acceptCheck);
                registry.addInterceptor(tokenInterceptor);
            }

            @Override
            public void extendHandlerExceptionResolvers(List<HandlerExceptionResolver> resolvers) {
                resolvers.add(0, new OnlyOnceRefusals(properties.key().unavailableRetryAfter()));
            }
        };
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "onlyonce.token.endpoint-enabled", matchIfMissing = true)
    @ConditionalOnBooleanProperty(name = "onlyonce.token.enabled", matchIfMissing = true)
    @Conditional(TokenSigning.Signed.class)
    TokenEndpoint onlyOnceTokenEndpoint(TokenService tokens, PrincipalResolver principals, OnlyOnceProperties properties,
            TokenLimits limits) {
        return new TokenEndpoint(tokens, principals, properties.principalRequired(), limits,
                properties.key().unavailableRetryAfter());
    }

    /** The servlet de-dup filter, when {@code onlyonce.dedup.enabled=true}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty("onlyonce.dedup.enabled")
    public static class Dedup {

        @Bean
        @ConditionalOnMissingBean
        DedupRules onlyOnceDedupRules(OnlyOnceProperties properties) {
            return new DedupRules(properties.dedup().rules());
        }

        @Bean
        @ConditionalOnMissingBean(name = "onlyOnceDedupFilter")
        FilterRegistrationBean<RequestDedupFilter> onlyOnceDedupFilter(DedupRules rules, ObjectProvider<WindowStore> windowStores,
                PrincipalResolver principals, OnlyOnceStatistics statistics, OnlyOnceProblems problems,
                CircuitBreakerRegistry breakers, OnlyOnceProperties properties,
                ObjectProvider<DeferredWindow.Deferral> deferral) {
            WindowStore windows = OnlyOnceAutoConfiguration.requireStore(windowStores, WindowStore.class, properties);
            RequestDedupFilter filter = new RequestDedupFilter(rules,
                    OnlyOnceAutoConfiguration.guardedWindows(windows, properties, breakers), principals, statistics,
                    problems, properties.key().maxBodySize().toBytes(), deferral.getIfUnique());
            FilterRegistrationBean<RequestDedupFilter> registration = new FilterRegistrationBean<>(filter);
            registration.setOrder(DEDUP_FILTER_ORDER);
            return registration;
        }
    }

    /**
     * On the Redis store: one budget for the store calls of each HTTP request
     * ({@code onlyonce.redis.request-budget}), opened before any other filter, so that a request that
     * makes several store calls against a server that does not answer waits once, not once per call;
     * and the {@code AtomicIdempotency} parameters of {@code @Idempotent} handler methods.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.onlyonce.redis.RedisStoreConfig")
    @ConditionalOnProperty(name = "onlyonce.store", havingValue = "redis")
    @ConditionalOnBean(type = "io.onlyonce.redis.RedisStoreConfig")
    static class Redis {

        @Bean
        @ConditionalOnMissingBean(name = "onlyOnceRequestStoreBudgetFilter")
        FilterRegistrationBean<RequestStoreBudgetFilter> onlyOnceRequestStoreBudgetFilter(OnlyOnceProperties properties) {
            FilterRegistrationBean<RequestStoreBudgetFilter> registration =
                    new FilterRegistrationBean<>(new RequestStoreBudgetFilter(properties.redis().requestBudget()));
            registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
            registration.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.ASYNC, DispatcherType.ERROR);
            return registration;
        }

        @Bean
        @ConditionalOnMissingBean(name = "onlyOnceAtomicWebMvcConfigurer")
        WebMvcConfigurer onlyOnceAtomicWebMvcConfigurer(ObjectProvider<CircuitBreakerAtomicExecutor> executor,
                TokenService tokens, OnlyOnceStatistics statistics, ObservedDurations durations) {
            AtomicIdempotencyArgumentResolver resolver =
                    new AtomicIdempotencyArgumentResolver(executor, tokens, statistics, durations);
            return new WebMvcConfigurer() {
                @Override
                public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
                    resolvers.add(resolver);
                }
            };
        }
    }
}
