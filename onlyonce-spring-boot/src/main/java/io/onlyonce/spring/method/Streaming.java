package io.onlyonce.spring.method;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Return types whose answer is streamed over time rather than written once: they cannot be stored
 * for replay. Asynchronous single answers ({@code CompletableFuture}, {@code DeferredResult},
 * {@code Callable}, {@code WebAsyncTask}) are not among them: they are recorded when written.
 */
public final class Streaming {

    private static final Set<String> STREAMING_TYPES = Set.of(
            "org.springframework.web.servlet.mvc.method.annotation.ResponseBodyEmitter",
            "org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody",
            "org.reactivestreams.Publisher");

    /** The answer of {@link #streamingType} per class, computed once: every protected request asks it. */
    private static final ClassValue<java.util.Optional<String>> STREAMING = new ClassValue<>() {
        @Override
        protected java.util.Optional<String> computeValue(Class<?> type) {
            return java.util.Optional.ofNullable(walk(type));
        }
    };

    private Streaming() {
    }

    /**
     * The simple name of the streaming type {@code type} is, extends or implements, through any
     * depth of super-interfaces (Reactor's {@code Mono} is a {@code Publisher} through
     * {@code CorePublisher}), or null.
     */
    public static @Nullable String streamingType(Class<?> type) {
        return STREAMING.get(type).orElse(null);
    }

    private static @Nullable String walk(Class<?> type) {
        Deque<Class<?>> pending = new ArrayDeque<>();
        Set<Class<?>> seen = new HashSet<>();
        pending.add(type);
        while (!pending.isEmpty()) {
            Class<?> c = pending.poll();
            if (c == Object.class || !seen.add(c)) {
                continue;
            }
            if (STREAMING_TYPES.contains(c.getName())) {
                return c.getSimpleName();
            }
            if (c.getSuperclass() != null) {
                pending.add(c.getSuperclass());
            }
            pending.addAll(List.of(c.getInterfaces()));
        }
        return null;
    }

    public static boolean isStreaming(Class<?> type) {
        return streamingType(type) != null;
    }
}
