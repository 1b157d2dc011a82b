package io.onlyonce.spring.method;

import io.onlyonce.spring.Idempotent;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.aop.Advisor;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Applies OnlyOnce's advice to every {@link Idempotent} method as the innermost advice: it is added
 * after every advisor the bean's proxy already has (transactions, security, retries, the
 * application's aspects), and a bean without a proxy gets one. OnlyOnce's advice therefore always
 * runs inside a {@code @Transactional} declared on the same method, whatever order the
 * transaction advisor has ({@code @EnableTransactionManagement(order = ...)}), so a record is
 * claimed and completed within that transaction and completion can follow its outcome
 * ({@link TransactionCompletion}). Class-based proxies, as Spring Boot makes them by default, so
 * non-public handler methods are protected too.
 */
public final class IdempotentAdvisingPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

    private static final long serialVersionUID = 1L;

    /** @param interceptor the advice, looked up when first called so that it may depend on any bean */
    public IdempotentAdvisingPostProcessor(ObjectProvider<IdempotentInvocationInterceptor> interceptor) {
        MethodInterceptor lazy = invocation -> interceptor.getObject().invoke(invocation);
        // checkInherited: an @Idempotent on an interface method (generated API interfaces) applies too
        this.advisor = new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, Idempotent.class, true), lazy);
        setBeforeExistingAdvisors(false);
        setProxyTargetClass(true);
    }

    /**
     * Adds the advice to the bean's proxy, or proxies it. A frozen proxy cannot take another advisor:
     * wrapping it would put OnlyOnce outside its transaction, so start-up fails instead.
     */
    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof org.springframework.aop.framework.Advised advised && advised.isFrozen()
                && isEligible(bean, beanName)) {
            throw new io.onlyonce.spring.OnlyOnceConfigurationException("Bean '" + beanName + "' has @Idempotent"
                    + " methods, but its proxy is frozen: OnlyOnce's advice could only wrap it from outside, outside"
                    + " the transaction and every other advice of the bean.",
                    "Do not freeze the proxy of a bean with @Idempotent methods (ProxyFactory/ProxyConfig setFrozen).");
        }
        return super.postProcessAfterInitialization(bean, beanName);
    }

    /** The advisor this post-processor adds, to check that a bean carries it. */
    public Advisor advisor() {
        return advisor;
    }
}
