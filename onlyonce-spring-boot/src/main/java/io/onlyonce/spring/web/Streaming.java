package io.onlyonce.spring.web;

import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * Return types whose answer is streamed over time rather than written once: they cannot be stored
 * for replay. Asynchronous single answers ({@code CompletableFuture}, {@code DeferredResult},
 * {@code Callable}, {@code WebAsyncTask}) are not among them: they are recorded when written.
 */
final class Streaming {

    private static final Set<String> STREAMING_TYPES = Set.of(
            "org.springframework.web.servlet.mvc.method.annotation.ResponseBodyEmitter",
            "org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody",
            "org.reactivestreams.Publisher");

    private Streaming() {
    }

    /** The simple name of the streaming type {@code type} is or implements, or null. */
    static @Nullable String streamingType(Class<?> type) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            if (STREAMING_TYPES.contains(c.getName())) {
                return c.getSimpleName();
            }
        }
        for (Class<?> i : ClassUtils.getAllInterfacesForClassAsSet(type)) {
            if (STREAMING_TYPES.contains(i.getName())) {
                return i.getSimpleName();
            }
        }
        return null;
    }

    static boolean isStreaming(Class<?> type) {
        return streamingType(type) != null;
    }
}
