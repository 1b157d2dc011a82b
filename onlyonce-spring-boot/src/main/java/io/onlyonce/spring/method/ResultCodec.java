package io.onlyonce.spring.method;

import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ClassUtils;

/**
 * How the result of an {@code @Idempotent} service method is stored and given back on a replay:
 * JSON written and read by the application's own Jackson mapper (its modules, naming and date
 * formats), Jackson 3's {@code JsonMapper} on Spring Boot 4 or Jackson 2's {@code ObjectMapper}
 * on Spring Boot 3.
 */
public interface ResultCodec {

    /**
     * The JSON of {@code value}.
     *
     * @throws NotSerializableException when the mapper cannot write it (the record is then
     *     completed without a stored result)
     */
    byte[] write(Object value) throws NotSerializableException;

    /** The value {@code method} returned, read back from its JSON as the method's generic return type. */
    @Nullable Object read(byte[] json, Method method);

    /**
     * The codec of the context's mapper bean: Jackson 3's {@code JsonMapper} when there is one,
     * else Jackson 2's {@code ObjectMapper}, else a default mapper of whichever is on the class path.
     */
    static ResultCodec of(BeanFactory beans) {
        ClassLoader loader = ResultCodec.class.getClassLoader();
        boolean three = ClassUtils.isPresent("tools.jackson.databind.json.JsonMapper", loader);
        boolean two = ClassUtils.isPresent("com.fasterxml.jackson.databind.ObjectMapper", loader);
        if (three) {
            ResultCodec codec = Jackson3ResultCodec.ofBean(beans);
            if (codec != null) {
                return codec;
            }
        }
        if (two) {
            ResultCodec codec = Jackson2ResultCodec.ofBean(beans);
            if (codec != null) {
                return codec;
            }
        }
        if (three) {
            try {
                return Jackson3ResultCodec.ofDefaults();
            } catch (LinkageError tooOldAnnotations) {
                if (!two) {
                    throw tooOldAnnotations;
                }
            }
        }
        if (two) {
            return Jackson2ResultCodec.ofDefaults();
        }
        throw new IllegalStateException("OnlyOnce stores the results of @Idempotent methods as JSON: " + JACKSON_MISSING);
    }

    /** What to add when there is no Jackson. */
    String JACKSON_MISSING = "add Jackson (spring-boot-starter-jackson on Spring Boot 4, spring-boot-starter-json on 3.5,"
            + " or tools.jackson.core:jackson-databind / com.fasterxml.jackson.core:jackson-databind)";

    /** Whether Jackson 3 or Jackson 2 is on the class path. */
    static boolean jacksonPresent() {
        ClassLoader loader = ResultCodec.class.getClassLoader();
        return ClassUtils.isPresent("tools.jackson.databind.json.JsonMapper", loader)
                || ClassUtils.isPresent("com.fasterxml.jackson.databind.ObjectMapper", loader);
    }

    /**
     * {@link #of} made on first use: an application without {@code @Idempotent} service methods
     * starts without Jackson (those methods are refused at start-up when it is missing).
     */
    static ResultCodec lazy(BeanFactory beans) {
        org.springframework.util.function.SingletonSupplier<ResultCodec> codec =
                org.springframework.util.function.SingletonSupplier.of(() -> of(beans));
        return new ResultCodec() {
            @Override
            public byte[] write(Object value) throws NotSerializableException {
                return codec.obtain().write(value);
            }

            @Override
            public @Nullable Object read(byte[] json, Method method) {
                return codec.obtain().read(json, method);
            }
        };
    }

    /** The mapper could not write a value. */
    final class NotSerializableException extends Exception {

        private static final long serialVersionUID = 1L;

        NotSerializableException(Throwable cause) {
            super(cause.getMessage(), cause);
        }
    }
}
