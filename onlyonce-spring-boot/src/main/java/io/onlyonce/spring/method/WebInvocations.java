package io.onlyonce.spring.method;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * The servlet side of {@code @Idempotent}: Spring MVC handler methods called within a request,
 * answered over HTTP (replay, problem details). Present only in servlet web applications; every
 * other call is handled by {@link IdempotentInvocationInterceptor} itself.
 */
public interface WebInvocations {

    /** Whether {@code invocation} is a handler method called within a servlet request. */
    boolean handles(MethodInvocation invocation);

    /** Runs {@code invocation} under OnlyOnce's web rules. */
    @Nullable Object invoke(MethodInvocation invocation) throws Throwable;
}
