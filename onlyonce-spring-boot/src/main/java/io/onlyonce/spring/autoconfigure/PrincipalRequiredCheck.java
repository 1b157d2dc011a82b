package io.onlyonce.spring.autoconfigure;

import io.onlyonce.spring.Idempotent;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.stereotype.Controller;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Says at start-up what {@code onlyonce.principal-required=true} (the default) does to an
 * application whose requests carry no principal: every request to an {@code @Idempotent} endpoint
 * is refused with 400 {@code principal-required}. The rule of both web stacks, each of which tells
 * it what it found: whether Spring Security is on the class path, whether the application declares
 * its own principal resolver, and which endpoints are protected.
 *
 * <p>A warning, not a failure: without Spring Security a principal may still come from the servlet
 * container's own authentication or from a filter of the application's, which OnlyOnce cannot see
 * at start-up; such an application works as it is.
 */
public final class PrincipalRequiredCheck {

    private static final Logger log = LoggerFactory.getLogger(PrincipalRequiredCheck.class);
    private static final String SECURITY = "org.springframework.security.core.Authentication";
    private static final int NAMED = 3;

    private PrincipalRequiredCheck() {
    }

    /** Whether Spring Security is on the application's class path. */
    public static boolean securityPresent(@Nullable ClassLoader classLoader) {
        return ClassUtils.isPresent(SECURITY, classLoader);
    }

    /**
     * The warning for an application with these settings, or null when there is nothing to say: the
     * property is off, Spring Security is present, the application names its callers itself, or no
     * endpoint is protected.
     *
     * @param resolverType the principal resolver a bean of the application's would implement
     *     ({@code PrincipalResolver}, {@code ReactivePrincipalResolver})
     * @param endpoints the protected endpoints, as the web stack names them
     */
    public static @Nullable String warning(boolean principalRequired, boolean securityPresent, boolean ownResolver,
            String resolverType, List<String> endpoints) {
        if (!principalRequired || securityPresent || ownResolver || endpoints.isEmpty()) {
            return null;
        }
        String named = String.join(", ", endpoints.subList(0, Math.min(NAMED, endpoints.size())))
                + (endpoints.size() > NAMED ? " and " + (endpoints.size() - NAMED) + " more" : "");
        return "OnlyOnce: onlyonce.principal-required is true (the default), but Spring Security is not on the class"
                + " path and no " + resolverType + " bean is declared: unless the server authenticates requests"
                + " itself, they carry no principal, and every request to " + named + " is refused with 400"
                + " principal-required. Set onlyonce.principal-required=false if the callers are anonymous (their"
                + " keys are then shared per endpoint), or add Spring Security, or declare a " + resolverType
                + " bean that names the caller.";
    }

    /**
     * The {@code @Idempotent} handler methods of the controllers {@code beans} defines, as
     * {@code Type.method}, read from the bean definitions' types (no bean is created, so lazy
     * controllers count too).
     */
    public static List<String> handlers(ListableBeanFactory beans) {
        List<String> handlers = new ArrayList<>();
        for (String name : beans.getBeanNamesForAnnotation(Controller.class)) {
            Class<?> type = beans.getType(name, false);
            if (type == null) {
                continue;
            }
            Class<?> user = ClassUtils.getUserClass(type);
            ReflectionUtils.doWithMethods(user, method -> handlers.add(user.getSimpleName() + "." + method.getName()),
                    method -> AnnotatedElementUtils.hasAnnotation(method, Idempotent.class));
        }
        return handlers;
    }

    /**
     * Logs {@link #warning} as a WARN line when there is one; answers whether it did.
     *
     * @param context the application, whose class path and controllers are looked at
     * @param more protected endpoints its controllers do not declare (functional routes)
     */
    public static boolean warnIfAnonymous(ApplicationContext context, boolean principalRequired, boolean ownResolver,
            String resolverType, List<String> more) {
        List<String> endpoints = new ArrayList<>(handlers(context));
        endpoints.addAll(more);
        String warning = warning(principalRequired, securityPresent(context.getClassLoader()), ownResolver, resolverType,
                endpoints);
        if (warning != null) {
            log.warn(warning);
        }
        return warning != null;
    }
}
