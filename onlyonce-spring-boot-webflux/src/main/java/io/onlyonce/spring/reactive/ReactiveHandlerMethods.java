package io.onlyonce.spring.reactive;

import io.onlyonce.spring.method.WebInvocations;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.stereotype.Controller;

/**
 * The reactive side of the method advice: a WebFlux controller's {@code @Idempotent} method is
 * protected by {@link OnlyOnceWebFilter} around the whole request, so the advice lets the call
 * itself through.
 */
final class ReactiveHandlerMethods implements WebInvocations {

    private final Map<Class<?>, Boolean> controllers = new ConcurrentHashMap<>();

    @Override
    public boolean handles(MethodInvocation invocation) {
        Object target = invocation.getThis();
        Class<?> type = target == null ? invocation.getMethod().getDeclaringClass() : AopUtils.getTargetClass(target);
        return controllers.computeIfAbsent(type, t -> AnnotatedElementUtils.hasAnnotation(t, Controller.class));
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        return invocation.proceed();
    }
}
