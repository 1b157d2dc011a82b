package io.onlyonce.spring.method;

import java.beans.PropertyDescriptor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.expression.spel.support.ReflectiveMethodResolver;
import org.springframework.expression.spel.support.ReflectivePropertyAccessor;
import org.springframework.util.ClassUtils;

/**
 * The properties and methods SpEL would find on a value, asked of the value's declared type
 * instead: the lookups of {@link ReflectivePropertyAccessor} (getter, {@code is} getter, plain
 * accessor such as a record's, public field) and of {@link ReflectiveMethodResolver} (public
 * methods), the only accessor and resolver of the key's evaluation context. Answers only for a
 * {@linkplain #knownClass known class}. Not thread-safe; one instance per check.
 */
final class DeclaredMembers extends ReflectivePropertyAccessor {

    DeclaredMembers() {
        super(false);
    }

    /**
     * The class whose members every value declared as {@code type} has and no more, or null when
     * the value may have others: the type is unresolvable, {@code Object}, an interface, abstract or
     * sealed (the value is of a subclass), a type variable or wildcard bound only by a class that
     * is not final, an array, a {@link Map} (entries are no properties), an {@link Optional}
     * (unwrapped by null-safe navigation) or a {@link Class} (whose properties are static ones).
     * A primitive is known as its wrapper.
     */
    static @Nullable Class<?> knownClass(ResolvableType type) {
        Class<?> resolved = type.resolve();
        if (resolved == null || (onlyBounded(type) && !Modifier.isFinal(resolved.getModifiers()))) {
            return null;
        }
        Class<?> known = ClassUtils.resolvePrimitiveIfNecessary(resolved);
        boolean open = known == Object.class || known.isInterface() || known.isArray() || known.isSealed()
                || Modifier.isAbstract(known.getModifiers());
        boolean special = Map.class.isAssignableFrom(known) || known == Optional.class || known == Class.class;
        return open || special ? null : known;
    }

    /** Whether {@code type} is a wildcard, or a type variable resolved to its bound rather than to an argument. */
    private static boolean onlyBounded(ResolvableType type) {
        if (type.getType() instanceof WildcardType) {
            return true;
        }
        if (type.getType() instanceof TypeVariable<?> variable) {
            return type.resolve() == ResolvableType.forType(variable.getBounds()[0]).resolve();
        }
        return false;
    }

    /**
     * The type of property {@code name} of {@code owner}, whose {@linkplain #knownClass known class}
     * is {@code type}; null when SpEL would find no such property.
     */
    @Nullable ResolvableType propertyType(ResolvableType owner, Class<?> type, String name) {
        Method getter = findGetterForProperty(name, type, false);
        if (getter != null) {
            return ResolvableType.forMethodParameter(new MethodParameter(getter, -1), owner);
        }
        Field field = findField(name, type, false);
        return field == null ? null : ResolvableType.forField(field, owner);
    }

    /**
     * The properties of {@code type} worth naming in a message: bean properties, record components
     * and public fields, without {@code class}; sorted.
     */
    static SortedSet<String> propertyNames(Class<?> type) {
        SortedSet<String> names = new TreeSet<>();
        for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
            if (property.getReadMethod() != null && !"class".equals(property.getName())) {
                names.add(property.getName());
            }
        }
        if (type.isRecord()) {
            Arrays.stream(type.getRecordComponents()).map(RecordComponent::getName).forEach(names::add);
        }
        Arrays.stream(type.getFields()).filter(f -> !Modifier.isStatic(f.getModifiers())).map(Field::getName)
                .forEach(names::add);
        return names;
    }

    /** The public methods of {@code type} called {@code name}, of any arity. */
    static List<Method> methods(Class<?> type, String name) {
        return Arrays.stream(type.getMethods()).filter(m -> m.getName().equals(name)).toList();
    }

    /** The names of the public methods of {@code type}, sorted. */
    static SortedSet<String> methodNames(Class<?> type) {
        SortedSet<String> names = new TreeSet<>();
        Arrays.stream(type.getMethods()).map(Method::getName).forEach(names::add);
        return names;
    }

    /**
     * The return type of a call to one of {@code methods} on {@code owner}; null when the overloads
     * return different types (which one runs depends on the arguments) or nothing.
     */
    static @Nullable ResolvableType returnType(ResolvableType owner, Collection<Method> methods) {
        List<ResolvableType> types = methods.stream()
                .map(m -> ResolvableType.forMethodParameter(new MethodParameter(m, -1), owner)).toList();
        ResolvableType first = types.get(0);
        boolean same = types.stream().allMatch(t -> t.getType().equals(first.getType()));
        return same && first.resolve() != void.class ? first : null;
    }

    /**
     * The type of an element of {@code type} taken by index: of an array, a collection or a map's
     * values; null for anything else (a string, a property read by name).
     */
    static @Nullable ResolvableType elementType(ResolvableType type) {
        Class<?> resolved = type.resolve();
        if (resolved == null) {
            return null;
        }
        if (resolved.isArray()) {
            return type.getComponentType();
        }
        if (Collection.class.isAssignableFrom(resolved)) {
            return type.asCollection().getGeneric(0);
        }
        if (Map.class.isAssignableFrom(resolved)) {
            return type.asMap().getGeneric(1);
        }
        return null;
    }
}
