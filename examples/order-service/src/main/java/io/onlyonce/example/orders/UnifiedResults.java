package io.onlyonce.example.orders;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.MethodParameter;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.ServerHttpRequest;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyAdvice;

/**
 * Wraps every body into {@link Result}, and turns every exception into HTTP 200
 * {@code {"code":500}}, ordered before every other advice: the configuration in which an idempotency
 * library's refusals are most easily lost.
 */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
class UnifiedResults implements ResponseBodyAdvice<Object> {

    private static final Logger log = LoggerFactory.getLogger(UnifiedResults.class);

    @Override
    public boolean supports(MethodParameter returnType, Class<? extends HttpMessageConverter<?>> converterType) {
        return true;
    }

    @Override
    public @Nullable Object beforeBodyWrite(@Nullable Object body, MethodParameter returnType, MediaType contentType,
            Class<? extends HttpMessageConverter<?>> converterType, ServerHttpRequest request, ServerHttpResponse response) {
        return body instanceof Result ? body : Result.ok(body);
    }

    @ExceptionHandler(Exception.class)
    @ResponseStatus(HttpStatus.OK)
    Result failed(Exception e) {
        log.info("request failed: {}", e.toString());
        return new Result(500, "system error", null);
    }
}
