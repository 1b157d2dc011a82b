package io.onlyonce.spring.method;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;

/** A {@link ResultCodec} on a Jackson 2 mapper. */
final class Jackson2ResultCodec implements ResultCodec {

    private final ObjectMapper mapper;
    private final Map<Method, JavaType> returnTypes = new ConcurrentHashMap<>();

    Jackson2ResultCodec(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    static @Nullable ResultCodec ofBean(BeanFactory beans) {
        ObjectMapper mapper = beans.getBeanProvider(ObjectMapper.class).getIfUnique();
        return mapper == null ? null : new Jackson2ResultCodec(mapper);
    }

    static ResultCodec ofDefaults() {
        return new Jackson2ResultCodec(new ObjectMapper().findAndRegisterModules());
    }

    @Override
    public byte[] write(Object value) throws NotSerializableException {
        try {
            return mapper.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new NotSerializableException(e);
        }
    }

    @Override
    public @Nullable Object read(byte[] json, Method method) {
        JavaType type = returnTypes.computeIfAbsent(method, m -> mapper.getTypeFactory().constructType(m.getGenericReturnType()));
        try {
            return mapper.readValue(json, type);
        } catch (IOException e) {
            throw new UncheckedIOException("the stored result of " + method + " cannot be read back", e);
        }
    }
}
