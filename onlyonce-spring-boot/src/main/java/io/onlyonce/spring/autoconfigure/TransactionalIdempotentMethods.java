package io.onlyonce.spring.autoconfigure;

import io.onlyonce.spring.Idempotent;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * At start-up, names the {@code @Idempotent} methods that run in a transaction they declare
 * ({@code @Transactional} on the method or its class) while the JDBC store does not join
 * transactions: each such call holds the transaction's connection and borrows a second one for the
 * store, so a pool smaller than twice the concurrent calls starves. Logs one warning, with the pool
 * size where the pool says.
 */
public final class TransactionalIdempotentMethods implements SmartInitializingSingleton, BeanFactoryAware {

    private static final Logger log = LoggerFactory.getLogger(TransactionalIdempotentMethods.class);
    private static final String TRANSACTIONAL = "org.springframework.transaction.annotation.Transactional";

    private final Environment environment;
    private @Nullable ConfigurableListableBeanFactory beanFactory;

    public TransactionalIdempotentMethods(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
        if (beanFactory instanceof ConfigurableListableBeanFactory listable) {
            this.beanFactory = listable;
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public void afterSingletonsInstantiated() {
        ConfigurableListableBeanFactory factory = beanFactory;
        if (factory == null || environment.getProperty("onlyonce.jdbc.join-transaction", Boolean.class, false)
                || !ClassUtils.isPresent(TRANSACTIONAL, getClass().getClassLoader())) {
            return;
        }
        Class<? extends java.lang.annotation.Annotation> transactional;
        try {
            transactional = (Class<? extends java.lang.annotation.Annotation>) ClassUtils.forName(TRANSACTIONAL,
                    getClass().getClassLoader());
        } catch (ClassNotFoundException e) {
            return;
        }
        List<String> methods = new ArrayList<>();
        for (String name : factory.getBeanDefinitionNames()) {
            Class<?> type = factory.getType(name, false);
            if (type == null) {
                continue;
            }
            Class<?> user = ClassUtils.getUserClass(type);
            boolean classTransactional = AnnotatedElementUtils.hasAnnotation(user, transactional);
            ReflectionUtils.doWithMethods(user, method -> {
                if (classTransactional || AnnotatedElementUtils.hasAnnotation(method, transactional)) {
                    methods.add(user.getSimpleName() + "." + method.getName());
                }
            }, method -> AnnotatedElementUtils.hasAnnotation(method, Idempotent.class));
        }
        if (methods.isEmpty()) {
            return;
        }
        Integer pool = factory.getBeanNamesForType(DataSource.class).length == 1
                ? PoolSize.of(factory.getBean(DataSource.class))
                : null;
        log.warn("OnlyOnce: {} run in transactions, and the JDBC store takes a second connection of the pool{} for"
                + " each of their calls while the transaction holds the first; a pool smaller than twice the"
                + " concurrent calls starves. Set onlyonce.jdbc.join-transaction=true to write the records through"
                + " the transaction's own connection (and commit them with the business data).",
                methods, pool == null ? "" : " (" + pool + " connections)");
    }
}
