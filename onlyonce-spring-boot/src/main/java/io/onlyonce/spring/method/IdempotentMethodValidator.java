package io.onlyonce.spring.method;

import io.onlyonce.spring.Idempotent;
import io.onlyonce.spring.http.TokenScopes;
import io.onlyonce.spring.OnlyOnceConfigurationException;
import io.onlyonce.spring.method.IdempotentAdvisingPostProcessor;
import io.onlyonce.spring.method.MethodSettings;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpEntity;
import org.springframework.stereotype.Controller;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.context.WebApplicationContext;

/**
 * Fails start-up, instead of silently not protecting a method or answering every request with 500,
 * when {@link Idempotent} sits where the proxy cannot reach it (a private, static or final method, a
 * final class, a method that is not public on a bean proxied through its interfaces; package-private
 * and protected methods are fine on the class proxies Spring Boot makes by default), on a web handler of an application that is not a servlet web application, on a
 * method of another bean without a key expression (or with the TOKEN strategy, or returning a
 * future), on a method that streams its answer ({@code ResponseBodyEmitter},
 * {@code StreamingResponseBody}, a reactive {@code Publisher}: such answers cannot be stored), with
 * an unparsable retention, lease or key expression, a key expression that uses a variable the method
 * does not have or a property or method its declared types do not have, or with the TOKEN strategy
 * while tokens are disabled. Asynchronous single answers ({@code CompletableFuture}, {@code DeferredResult},
 * {@code Callable}) are fine: they are recorded when written. Once every singleton exists it also
 * checks that each bean with {@code @Idempotent} methods really is a proxy carrying the OnlyOnce
 * advisor: a bean created before OnlyOnce's post-processor, or with a frozen proxy, would otherwise
 * run unprotected.
 */
public final class IdempotentMethodValidator implements BeanPostProcessor, BeanFactoryAware, SmartInitializingSingleton,
        ApplicationContextAware, EnvironmentAware {

    /** Name of the post-processor bean that applies OnlyOnce's advice ({@code IdempotentAdvisingPostProcessor}). */
    public static final String ADVISOR_BEAN_NAME = "onlyOnceAdvisor";

    private final Map<String, Class<?>> annotatedBeans = new ConcurrentHashMap<>();
    private @Nullable ConfigurableListableBeanFactory beanFactory;
    private volatile boolean singletonsInstantiated;
    private boolean servlet = true;
    private boolean reactive;
    private boolean tokensEnabled = true;
    private final boolean tokenSecretsMissing;

    /** A validator for an application whose one-time tokens can be signed (or are not used). */
    public IdempotentMethodValidator() {
        this(false);
    }

    /**
     * @param tokenSecretsMissing whether the store is shared by every instance and
     *     {@code onlyonce.token.secrets} is not set: then every TOKEN method fails start-up, since each
     *     instance would sign tokens with a random secret of its own and reject the others' as forged
     */
    public IdempotentMethodValidator(boolean tokenSecretsMissing) {
        this.tokenSecretsMissing = tokenSecretsMissing;
    }

    @Override
    public void setApplicationContext(ApplicationContext context) {
        servlet = context instanceof WebApplicationContext;
        reactive = isReactive(context)
                && ClassUtils.isPresent("org.springframework.web.reactive.DispatcherHandler", getClass().getClassLoader());
    }

    /** Whether {@code context} is a reactive web one, under Spring Boot 4's name of its type or 3's. */
    private static boolean isReactive(ApplicationContext context) {
        ClassLoader loader = IdempotentMethodValidator.class.getClassLoader();
        for (String type : java.util.List.of("org.springframework.boot.web.context.reactive.ReactiveWebApplicationContext",
                "org.springframework.boot.web.reactive.context.ReactiveWebApplicationContext")) {
            if (ClassUtils.isPresent(type, loader) && ClassUtils.resolveClassName(type, loader).isInstance(context)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void setEnvironment(Environment environment) {
        tokensEnabled = environment.getProperty("onlyonce.token.enabled", Boolean.class, true);
    }

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
        List<String> actions = new ArrayList<>();
        boolean[] annotated = {false};
        ReflectionUtils.doWithMethods(type, method -> {
            annotated[0] = true;
            problems.addAll(check(type, method, reactive));
            Idempotent idempotent = AnnotatedElementUtils.findMergedAnnotation(method, Idempotent.class);
            boolean token = idempotent != null && idempotent.strategy() == Idempotent.Strategy.TOKEN;
            if (token && !tokensEnabled) {
                problems.add(type.getSimpleName() + "." + method.getName()
                        + " uses the TOKEN strategy, but one-time tokens are disabled (onlyonce.token.enabled=false)");
            } else if (token && tokenSecretsMissing) {
                problems.add(type.getSimpleName() + "." + method.getName() + " uses the TOKEN strategy, but"
                        + " onlyonce.token.secrets is not set while the store is shared by every instance: each"
                        + " instance would sign tokens with a random secret of its own and reject the others' as forged");
                actions.add("Set onlyonce.token.secrets to at least one secret of 32 bytes or more, the same on every"
                        + " instance (for example onlyonce.token.secrets=${ONLYONCE_TOKEN_SECRET}).");
            }
        }, IdempotentMethodValidator::isIdempotent);
        if (annotated[0] && !servlet && !reactive && AnnotatedElementUtils.hasAnnotation(type, Controller.class)) {
            problems.add(0, "@Idempotent on a web handler needs a Spring MVC (servlet) or WebFlux (reactive) web"
                    + " application, and this application is neither; its methods would run unprotected");
        }
        if (!problems.isEmpty()) {
            actions.add("Change what is named above, or remove @Idempotent from the method; every start-up rule is"
                    + " listed under \"Fails fast\" in OnlyOnce's docs/spring-boot.md.");
            throw new OnlyOnceConfigurationException("@Idempotent cannot apply in bean '" + beanName + "': "
                    + String.join("; ", problems) + ".", String.join(" ", actions));
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
        Advisor advisor = factory.containsBean(ADVISOR_BEAN_NAME)
                && factory.getBean(ADVISOR_BEAN_NAME) instanceof IdempotentAdvisingPostProcessor processor
                ? processor.advisor()
                : null;
        boolean advised = advisor != null && AopUtils.isAopProxy(bean) && bean instanceof Advised proxy
                && Arrays.stream(proxy.getAdvisors()).anyMatch(a -> a == advisor);
        if (!AopUtils.isCglibProxy(bean)) {
            // an interface proxy reaches public interface methods only, and Spring makes no proxy at
            // all for a bean whose only advised methods such a proxy cannot reach
            List<String> unreachable = new ArrayList<>();
            ReflectionUtils.doWithMethods(type, m -> {
                if (!Modifier.isPublic(m.getModifiers())) {
                    unreachable.add(type.getSimpleName() + "." + m.getName());
                }
            }, IdempotentMethodValidator::isIdempotent);
            if (!unreachable.isEmpty()) {
                throw new OnlyOnceConfigurationException("@Idempotent methods " + unreachable + " of bean '" + beanName
                        + "' are not public, and the bean is not proxied through its class: an interface (JDK) proxy"
                        + " reaches public interface methods only.", "Let Spring proxy the class"
                        + " (spring.aop.proxy-target-class=true, the default), or make the methods public and declare"
                        + " them in an interface of the bean.");
            }
        }
        if (!advised) {
            List<String> methods = new ArrayList<>();
            ReflectionUtils.doWithMethods(type, m -> methods.add(type.getSimpleName() + "." + m.getName()),
                    IdempotentMethodValidator::isIdempotent);
            throw new OnlyOnceConfigurationException("@Idempotent methods " + methods + " of bean '" + beanName
                    + "' would run unprotected: the bean is not proxied with the OnlyOnce advisor of '"
                    + ADVISOR_BEAN_NAME + "'.", "The bean was created before OnlyOnce's post-processor (a bean that a"
                    + " BeanPostProcessor depends on is never proxied), or its proxy is frozen: create it later, or"
                    + " do not freeze its proxy.");
        }
    }

    /** Whether {@code method} carries {@link Idempotent}, also through an interface or superclass it implements. */
    static boolean isIdempotent(Method method) {
        return AnnotatedElementUtils.hasAnnotation(method, Idempotent.class);
    }

    static List<String> check(Class<?> type, Method method) {
        return check(type, method, false);
    }

    /**
     * @param reactive whether the application is a WebFlux one: its handlers are keyed by the header
     *     only, and answer {@code Mono} (recorded) or {@code Flux} (passed through, not stored)
     */
    static List<String> check(Class<?> type, Method method, boolean reactive) {
        List<String> problems = new ArrayList<>();
        String name = type.getSimpleName() + "." + method.getName();
        int modifiers = method.getModifiers();
        if (Modifier.isPrivate(modifiers)) {
            problems.add(name + " is private");
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
        boolean controller = AnnotatedElementUtils.hasAnnotation(type, Controller.class);
        Idempotent idempotent = AnnotatedElementUtils.findMergedAnnotation(method, Idempotent.class);
        if (!controller && idempotent != null) {
            if (idempotent.strategy() == Idempotent.Strategy.TOKEN) {
                problems.add(name + " uses the TOKEN strategy, which only web handlers can (a token comes with a request)");
            } else if (idempotent.key().isBlank()) {
                problems.add(name + " is not a web handler, so its key must come from its arguments:"
                        + " set @Idempotent(key = \"#argument...\")");
            }
            if (!ResultCodec.jacksonPresent()) {
                problems.add(name + " is not a web handler, so its result is stored as JSON, and there is no Jackson on"
                        + " the class path: " + ResultCodec.JACKSON_MISSING);
            }
            Class<?> returned = method.getReturnType();
            if (java.util.concurrent.CompletionStage.class.isAssignableFrom(returned)
                    || java.util.concurrent.Future.class.isAssignableFrom(returned)) {
                problems.add(name + " returns " + returned.getSimpleName()
                        + ": outside a web request only results returned directly can be stored");
            }
        }
        if (idempotent != null) {
            for (String problem : MethodSettings.problems(idempotent, method, type)) {
                problems.add(name + ": " + problem);
            }
        }
        if (controller && idempotent != null && idempotent.strategy() == Idempotent.Strategy.TOKEN) {
            for (String unknown : TokenScopes.unknownPlaceholders(idempotent.scope(), type, method)) {
                problems.add(name + " has token scope placeholder {" + unknown + "}, which is not a path variable of its mapping");
            }
        }
        if (controller && reactive && idempotent != null) {
            if (!idempotent.key().isBlank() && idempotent.strategy() == Idempotent.Strategy.KEY) {
                problems.add(name + " has a key expression, which WebFlux handlers do not support yet:"
                        + " the key comes from the Idempotency-Key header");
            }
            // Mono is recorded; Flux is passed through and not stored (logged at start-up)
            return problems;
        }
        ResolvableType result = ResolvableType.forMethodReturnType(method, type);
        if (HttpEntity.class.isAssignableFrom(result.toClass())) {
            result = result.as(HttpEntity.class).getGeneric(0);
        }
        String streaming = Streaming.streamingType(result.toClass());
        if (streaming != null) {
            problems.add(name + " streams its answer (" + streaming
                    + "), which is written over time and cannot be stored for replay");
        }
        return problems;
    }

}
