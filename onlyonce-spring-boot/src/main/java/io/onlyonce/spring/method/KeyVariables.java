package io.onlyonce.spring.method;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.ResolvableType;

/**
 * The variables a key expression can use: exactly those of the context it is evaluated in at run
 * time, a {@link MethodBasedEvaluationContext} whose root object is the bean. That context defines,
 * for each parameter, its name (when the names are compiled in, {@code javac -parameters}) and its
 * position as {@code #p0}, {@code #a0}...; SpEL adds {@code #root} (the bean) and {@code #this} (the
 * current object: the bean, or an element inside a projection or selection). No other variable, no
 * function and no bean resolver is registered.
 *
 * @param types the declared type of each parameter variable, by name, in the order they are listed
 * @param namesKnown whether the parameter names could be discovered
 */
record KeyVariables(Map<String, ResolvableType> types, boolean namesKnown) {

    /** The variable SpEL binds to the root object. */
    static final String ROOT = "root";

    /** The variable SpEL binds to the current object. */
    static final String THIS = "this";

    /**
     * The variables of {@code method} of a bean of class {@code beanType}, named as
     * {@code discoverer} names them (use the discoverer of the run-time evaluation).
     */
    static KeyVariables of(Method method, Class<?> beanType, ParameterNameDiscoverer discoverer) {
        String[] names = discoverer.getParameterNames(method);
        Map<String, ResolvableType> types = new LinkedHashMap<>();
        for (int i = 0; i < method.getParameterCount(); i++) {
            ResolvableType type = ResolvableType.forMethodParameter(method, i, beanType);
            if (names != null) {
                types.put(names[i], type);
            }
            types.put("p" + i, type);
            types.put("a" + i, type);
        }
        return new KeyVariables(Collections.unmodifiableMap(types), names != null);
    }

    /** Whether {@code #name} has a value at run time. */
    boolean defines(String name) {
        return types.containsKey(name) || ROOT.equals(name) || THIS.equals(name);
    }

    /** The declared type of parameter variable {@code name}; null for another name. */
    @Nullable ResolvableType type(String name) {
        return types.get(name);
    }

    /** Every variable, written as in an expression ({@code #request}, {@code #p0}... {@code #root}, {@code #this}). */
    List<String> written() {
        List<String> written = new ArrayList<>();
        types.keySet().forEach(name -> written.add("#" + name));
        written.add("#" + ROOT);
        written.add("#" + THIS);
        return written;
    }
}
