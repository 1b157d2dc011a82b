package io.onlyonce.spring;

import java.lang.reflect.Proxy;
import java.util.function.Consumer;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration.LettuceClientConfigurationBuilder;
import org.springframework.util.ClassUtils;

/**
 * Spring Boot's {@code LettuceClientConfigurationBuilderCustomizer} as a bean on whichever line the
 * test runs (Boot 4 moved it from {@code org.springframework.boot.autoconfigure.data.redis} into
 * {@code org.springframework.boot.data.redis.autoconfigure}), so that one test source serves both
 * lines. The bean is registered with the line's interface as its type, so Boot's Lettuce
 * auto-configuration finds it however early it builds the connection factory.
 */
final class LettuceCustomizer {

    private static final String BOOT4 = "org.springframework.boot.data.redis.autoconfigure.LettuceClientConfigurationBuilderCustomizer";
    private static final String BOOT3 = "org.springframework.boot.autoconfigure.data.redis.LettuceClientConfigurationBuilderCustomizer";

    private LettuceCustomizer() {
    }

    /**
     * A post-processor to return from a {@code static @Bean} method: it registers the customizer
     * {@code name} (another name than the {@code @Bean} method's) that applies {@code customization} to the
     * client configuration Boot builds.
     */
    static BeanDefinitionRegistryPostProcessor named(String name, Consumer<LettuceClientConfigurationBuilder> customization) {
        return registry -> {
            Class<?> type = type();
            Object customizer = Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) ->
                    switch (method.getName()) {
                        case "customize" -> {
                            customization.accept((LettuceClientConfigurationBuilder) args[0]);
                            yield null;
                        }
                        case "equals" -> proxy == args[0];
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "toString" -> "LettuceCustomizer " + name;
                        default -> throw new UnsupportedOperationException(method.toString());
                    });
            registry.registerBeanDefinition(name, new RootBeanDefinition(castType(type), () -> customizer));
        };
    }

    /** The customizer interface of the class path's line. */
    static Class<?> type() {
        ClassLoader loader = LettuceCustomizer.class.getClassLoader();
        return ClassUtils.resolveClassName(ClassUtils.isPresent(BOOT4, loader) ? BOOT4 : BOOT3, loader);
    }

    @SuppressWarnings("unchecked")
    private static Class<Object> castType(Class<?> type) {
        return (Class<Object>) type;
    }
}
