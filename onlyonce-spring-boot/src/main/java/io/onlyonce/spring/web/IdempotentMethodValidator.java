package io.onlyonce.spring.web;

import io.onlyonce.spring.Idempotent;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.http.HttpEntity;
import org.springframework.stereotype.Controller;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Fails start-up when {@link Idempotent} sits where the proxy cannot reach it (a private, static
 * or final method, a final class) or outside a Spring MVC controller, instead of silently not
 * protecting the method; so does a method returning an asynchronous result (its answer is written
 * after the request thread returns, where it cannot be recorded). Once every singleton exists it also checks that each bean with
 * {@code @Idempotent} methods really is a proxy carrying the OnlyOnce advisor: without an
 * auto-proxy creator ({@code spring.aop.auto=false}) the methods would otherwise run unprotected.
 */
public final class IdempotentMethodValidator implements BeanPostProcessor, BeanFactoryAware, SmartInitializingSingleton {

    /** Name of the advisor bean that applies {@link IdempotentMethodInterceptor}. */
    public static final String ADVISOR_BEAN_NAME = "onlyOnceAdvisor";

    private final Map<String, Class<?>> annotatedBeans = new ConcurrentHashMap<>();
    private @Nullable ConfigurableListableBeanFactory beanFactory;
    private volatile boolean singletonsInstantiated;

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        if (beanFactory instanceof ConfigurableListableBeanFactory listable) {
            this.beanFactory = listable;
        }
    }

    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) throws BeansException {
        Class<?> type = ClassUtils.getUserClass(bean);
        List<String> problems = new ArrayList<>();
        boolean[] annotated = {false};
        ReflectionUtils.doWithMethods(type, method -> {
            annotated[0] = true;
            problems.addAll(check(type, method));
        }, IdempotentMethodValidator::isIdempotent);
        if (!problems.isEmpty()) {
            throw new BeanInitializationException("@Idempotent cannot apply in bean '" + beanName + "': "
                    + String.join("; ", problems));
        }
        if (annotated[0]) {
            annotatedBeans.put(beanName, type);
        }
        return bean;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        if (singletonsInstantiated && annotatedBeans.containsKey(beanName)) {
            // a lazy bean created after start-up: this post-processor runs after the ordered ones,
            // so an auto-proxy creator has had its turn
            verifyAdvised(beanName, bean, annotatedBeans.get(beanName));
        }
        return bean;
    }

    @Override
    public void afterSingletonsInstantiated() {
        ConfigurableListableBeanFactory factory = beanFactory;
        if (factory != null) {
            annotatedBeans.forEach((name, type) -> {
                Object bean = factory.containsSingleton(name) ? factory.getSingleton(name) : null;
                if (bean != null) {
                    verifyAdvised(name, bean, type);
                }
            });
        }
        singletonsInstantiated = true;
    }

    private void verifyAdvised(String beanName, Object bean, Class<?> type) {
        ConfigurableListableBeanFactory factory = beanFactory;
        if (factory == null) {
            return;
        }
        Advisor advisor = factory.containsBean(ADVISOR_BEAN_NAME) ? factory.getBean(ADVISOR_BEAN_NAME, Advisor.class) : null;
        boolean advised = advisor != null && AopUtils.isAopProxy(bean) && bean instanceof Advised proxy
                && Arrays.stream(proxy.getAdvisors()).anyMatch(a -> a == advisor);
        if (!advised) {
            List<String> methods = new ArrayList<>();
            ReflectionUtils.doWithMethods(type, m -> methods.add(type.getSimpleName() + "." + m.getName()),
                    IdempotentMethodValidator::isIdempotent);
            throw new BeanInitializationException("@Idempotent methods " + methods + " of bean '" + beanName
                    + "' would run unprotected: the bean is not proxied with the OnlyOnce advisor '"
                    + ADVISOR_BEAN_NAME + "'. Spring's auto-proxying must be on (do not set spring.aop.auto=false, "
                    + "or register an auto-proxy creator yourself).");
        }
    }

    /** Whether {@code method} carries {@link Idempotent}, also through an interface or superclass it implements. */
    static boolean isIdempotent(Method method) {
        return AnnotatedElementUtils.hasAnnotation(method, Idempotent.class);
    }

    static List<String> check(Class<?> type, Method method) {
        List<String> problems = new ArrayList<>();
        String name = type.getSimpleName() + "." + method.getName();
        int modifiers = method.getModifiers();
        if (!Modifier.isPublic(modifiers)) {
            problems.add(name + " is not public");
        }
        if (Modifier.isStatic(modifiers)) {
            problems.add(name + " is static");
        }
        if (Modifier.isFinal(modifiers)) {
            problems.add(name + " is final");
        }
        if (Modifier.isFinal(type.getModifiers())) {
            problems.add(name + " is in a final class");
        }
        if (!AnnotatedElementUtils.hasAnnotation(type, Controller.class)) {
            problems.add(name + " is not in a Spring MVC @Controller");
        }
        Idempotent idempotent = AnnotatedElementUtils.findMergedAnnotation(method, Idempotent.class);
        if (idempotent != null && idempotent.strategy() == Idempotent.Strategy.TOKEN) {
            for (String unknown : TokenScopes.unknownPlaceholders(idempotent.scope(), type, method)) {
                problems.add(name + " has token scope placeholder {" + unknown + "}, which is not a path variable of its mapping");
            }
        }
        ResolvableType result = ResolvableType.forMethodReturnType(method, type);
        if (HttpEntity.class.isAssignableFrom(result.toClass())) {
            result = result.as(HttpEntity.class).getGeneric(0);
        }
        String async = asyncType(result.toClass());
        if (async != null) {
            problems.add(name + " returns an asynchronous result (" + async
                    + "), whose response is written after the request thread returns and cannot be recorded");
        }
        return problems;
    }

    /** Return types that Spring MVC completes asynchronously or streams. */
    private static final Set<String> ASYNC_TYPES = Set.of(
            "java.util.concurrent.Callable",
            "java.util.concurrent.CompletionStage",
            "java.util.concurrent.Future",
            "org.springframework.web.context.request.async.DeferredResult",
            "org.springframework.web.context.request.async.WebAsyncTask",
            "org.springframework.web.servlet.mvc.method.annotation.ResponseBodyEmitter",
            "org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody",
            "org.reactivestreams.Publisher");

    private static @Nullable String asyncType(Class<?> type) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            if (ASYNC_TYPES.contains(c.getName())) {
                return c.getSimpleName();
            }
        }
        for (Class<?> i : ClassUtils.getAllInterfacesForClassAsSet(type)) {
            if (ASYNC_TYPES.contains(i.getName())) {
                return i.getSimpleName();
            }
        }
        return ASYNC_TYPES.contains(type.getName()) ? type.getSimpleName() : null;
    }
}
