package io.onlyonce.spring.method;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/** A {@link ResultCodec} on a Jackson 3 mapper. */
final class Jackson3ResultCodec implements ResultCodec {

    private final ObjectMapper mapper;
    private final Map<Method, JavaType> returnTypes = new ConcurrentHashMap<>();

    Jackson3ResultCodec(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    static @Nullable ResultCodec ofBean(BeanFactory beans) {
        JsonMapper mapper = beans.getBeanProvider(JsonMapper.class).getIfUnique();
        return mapper == null ? null : new Jackson3ResultCodec(mapper);
    }

    static ResultCodec ofDefaults() {
        return new Jackson3ResultCodec(JsonMapper.builder().build());
    }

    @Override
    public byte[] write(Object value) throws NotSerializableException {
        try {
            return mapper.writeValueAsBytes(value);
        } catch (JacksonException e) {
            throw new NotSerializableException(e);
        }
    }

    @Override
    public @Nullable Object read(byte[] json, Method method) {
        JavaType type = returnTypes.computeIfAbsent(method, m -> mapper.getTypeFactory().constructType(m.getGenericReturnType()));
        return mapper.readValue(json, type);
    }
}
