package io.onlyonce.spring.web;

import io.onlyonce.spring.Idempotent;
import io.onlyonce.spring.metrics.OutcomeRecorder;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.RequestEntity;
import org.springframework.http.converter.GenericHttpMessageConverter;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.converter.SmartHttpMessageConverter;
import org.springframework.web.ErrorResponse;
import org.springframework.web.HttpMediaTypeNotAcceptableException;
import org.springframework.web.accept.ContentNegotiationManager;
import org.springframework.web.bind.annotation.ResponseBody;
import org.springframework.web.context.request.ServletWebRequest;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.context.request.async.WebAsyncTask;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.HandlerMapping;

/**
 * Refuses a request to an {@code @Idempotent} handler with 406 before anything is claimed or
 * consumed, when its answer could not be written in any media type the request accepts: the
 * method would run, take effect, and its answer would then be refused, leaving the client without
 * it and its key or token spent.
 *
 * <p>Decided as Spring MVC decides when it writes the answer: the media types the application's
 * message converters can write the declared body type in ({@code ResponseEntity<Order>} →
 * {@code Order}, a future's or {@code DeferredResult}'s value; an unresolvable type or
 * {@code Object} as {@code Object}, which the JSON converter writes), or the mapping's
 * {@code produces}, against what the application's {@link ContentNegotiationManager} reads from
 * the request ({@code Accept}, and a {@code ?format=} parameter where the application configured
 * one). When none is compatible it throws Spring's own {@link HttpMediaTypeNotAcceptableException},
 * answered by the application's exception handling exactly as a mapping whose {@code produces}
 * does not match. Handlers that render a view ({@code void}, {@code ModelAndView}, a view name),
 * and bodies Spring writes whatever the request accepts (a {@code ProblemDetail}, no body), are not
 * checked. What can be known of a method is resolved once.
 *
 * <p>A {@link HandlerInterceptor}: it runs before the arguments are bound, the key is claimed or
 * the token consumed, and it can throw Spring's checked exception as Spring MVC's own checks do.
 */
public final class AcceptCheck implements HandlerInterceptor {

    /** A method whose answer is not negotiated: rendered as a view, or without a body. */
    private static final List<MediaType> NOT_NEGOTIATED = List.of();

    private final Supplier<List<HttpMessageConverter<?>>> converters;
    private final Supplier<ContentNegotiationManager> negotiation;
    private final OutcomeRecorder recorder;
    private final ConcurrentMap<Method, List<MediaType>> writable = new ConcurrentHashMap<>();

    /**
     * @param converters the message converters Spring MVC writes answers with, asked once per method
     * @param negotiation the content negotiation manager Spring MVC uses
     * @param recorder counts a refusal as {@code not_acceptable}
     */
    public AcceptCheck(Supplier<List<HttpMessageConverter<?>>> converters, Supplier<ContentNegotiationManager> negotiation,
            OutcomeRecorder recorder) {
        this.converters = converters;
        this.negotiation = negotiation;
        this.recorder = recorder;
    }

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
            throws HttpMediaTypeNotAcceptableException {
        if (handler instanceof HandlerMethod method) {
            check(request, method);
        }
        return true;
    }

    private void check(HttpServletRequest request, HandlerMethod handler) throws HttpMediaTypeNotAcceptableException {
        List<MediaType> types = writable.computeIfAbsent(handler.getMethod(), m -> writableTypes(handler));
        if (types == NOT_NEGOTIATED) {
            return;
        }
        @SuppressWarnings("unchecked")
        Set<MediaType> produces = (Set<MediaType>) request.getAttribute(HandlerMapping.PRODUCIBLE_MEDIA_TYPES_ATTRIBUTE);
        List<MediaType> producible = produces == null || produces.isEmpty() ? types : List.copyOf(produces);
        List<MediaType> accepted = negotiation.get().resolveMediaTypes(new ServletWebRequest(request));
        for (MediaType acceptedType : accepted) {
            for (MediaType producibleType : producible) {
                if (acceptedType.isCompatibleWith(producibleType)) {
                    return;
                }
            }
        }
        recorder.record(OutcomeRecorder.LAYER_BUSINESS, "not_acceptable", RequestContext.endpoint(request));
        throw new HttpMediaTypeNotAcceptableException(producible);
    }

    /**
     * The media types the converters can write the method's body in; {@link #NOT_NEGOTIATED} when
     * the method is not protected, renders a view, has no body, or none of the converters writes it
     * (Spring MVC then fails whatever the request accepts).
     */
    private List<MediaType> writableTypes(HandlerMethod handler) {
        if (!AnnotatedElementUtils.hasAnnotation(handler.getMethod(), Idempotent.class)) {
            return NOT_NEGOTIATED;
        }
        ResolvableType declared = bodyType(handler);
        if (declared == null) {
            return NOT_NEGOTIATED;
        }
        // a body type that does not resolve (ResponseEntity<?>, a type variable) is written as Object
        ResolvableType body = declared.resolve() == null ? ResolvableType.forClass(Object.class) : declared;
        Class<?> value = body.toClass();
        if (value == void.class || value == Void.class || ProblemDetail.class.isAssignableFrom(value)
                || ErrorResponse.class.isAssignableFrom(value)) {
            return NOT_NEGOTIATED;
        }
        Set<MediaType> types = new LinkedHashSet<>();
        for (HttpMessageConverter<?> converter : converters.get()) {
            if (canWrite(converter, body, value)) {
                types.addAll(converter.getSupportedMediaTypes(value));
            }
        }
        return types.isEmpty() ? NOT_NEGOTIATED : new ArrayList<>(types);
    }

    private static boolean canWrite(HttpMessageConverter<?> converter, ResolvableType body, Class<?> value) {
        if (converter instanceof SmartHttpMessageConverter<?> smart) {
            return smart.canWrite(body, value, null);
        }
        if (converter instanceof GenericHttpMessageConverter<?> generic) {
            return generic.canWrite(body.getType(), value, null);
        }
        return converter.canWrite(value, null);
    }

    /**
     * The type of the body Spring MVC writes through the message converters: an entity's body, or
     * the value of a {@code @ResponseBody} method (an asynchronous one's eventual value); null for a
     * method whose answer is rendered as a view or is only headers.
     */
    private static @Nullable ResolvableType bodyType(HandlerMethod handler) {
        ResolvableType type = ResolvableType.forMethodParameter(handler.getReturnType());
        type = eventualValue(type);
        Class<?> raw = type.resolve(Object.class);
        if (HttpEntity.class.isAssignableFrom(raw) && !RequestEntity.class.isAssignableFrom(raw)) {
            return type.as(HttpEntity.class).getGeneric(0);
        }
        if (HttpHeaders.class.isAssignableFrom(raw)) {
            return null;
        }
        boolean responseBody = handler.hasMethodAnnotation(ResponseBody.class)
                || AnnotatedElementUtils.hasAnnotation(handler.getBeanType(), ResponseBody.class);
        return responseBody ? type : null;
    }

    /** The value an asynchronous return type ends with, or {@code type} itself. */
    private static ResolvableType eventualValue(ResolvableType type) {
        for (Class<?> async : List.of(CompletionStage.class, DeferredResult.class, Callable.class, WebAsyncTask.class)) {
            if (async.isAssignableFrom(type.resolve(Object.class))) {
                return type.as(async).getGeneric(0);
            }
        }
        return type;
    }
}
