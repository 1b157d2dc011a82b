package io.onlyonce.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a method take effect only once per key or per token: a Spring MVC or WebFlux handler
 * method, or a method of any other Spring bean (a service, a message listener), keyed by its
 * arguments.
 *
 * <pre>{@code
 * @PostMapping("/orders")
 * @Idempotent                                   // Idempotency-Key header, replay for 24 h
 * ResponseEntity<Order> create(@RequestBody OrderRequest req) { ... }
 *
 * @PostMapping("/orders")
 * @Idempotent(key = "#req.businessId")          // key taken from the arguments (SpEL)
 * ResponseEntity<Order> create(@RequestBody OrderRequest req) { ... }
 *
 * @PostMapping("/seckill/orders")
 * @Idempotent(strategy = Idempotent.Strategy.TOKEN, scope = "seckill")
 * Order buy(...) { ... }                        // one-time token, consumed before the method runs
 *
 * @Idempotent(key = "#req.refundNo")             // a service method: the key from its arguments,
 * @Transactional                                // completed once the transaction commits
 * public Refund refund(RefundRequest req) { ... }
 * }</pre>
 *
 * <p>The method must not be private, static or final, nor in a final class; package-private and
 * protected methods are fine on the class-based proxies Spring Boot makes by default (a bean
 * proxied through its interfaces needs public interface methods). A method of a bean that is not a
 * web handler needs a {@link #key()} expression and the KEY strategy, and returns its result rather
 * than a future. The application fails to start otherwise, instead of silently not protecting it. Calls from the same class
 * ({@code this.create(...)}) are not intercepted, as with every Spring proxy.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Idempotent {

    /** How duplicates are recognised. */
    enum Strategy {
        /** A client key ({@code Idempotency-Key} header or {@link #key()}); the first response is replayed. */
        KEY,
        /** A one-time token issued by the token endpoint and consumed atomically before the method runs. */
        TOKEN
    }

    /** The strategy; {@link Strategy#KEY} by default. */
    Strategy strategy() default Strategy.KEY;

    /**
     * KEY strategy: a SpEL expression over the method's arguments giving the key (for example
     * {@code "#req.businessId"}); empty to read the {@code Idempotency-Key} header. An expression
     * that yields null or blank text answers 400.
     */
    String key() default "";

    /** KEY strategy: whether a request without a key is refused (400) rather than run unprotected. */
    boolean required() default true;

    /**
     * KEY strategy on a bean that is not a web handler (a service method): whether the caller's
     * principal is part of the key's scope, as it always is on handlers. Within an authenticated
     * request (or wherever Spring Security's context names a caller), one principal's key then
     * never matches another's: bob calling with alice's refund number runs his own call instead of
     * receiving alice's stored result. Calls without a principal (jobs, message listeners) are
     * scoped by method alone either way. Set it false only for a key that is global by nature and
     * shared by every caller (a payment platform's notice id).
     */
    boolean perPrincipal() default true;

    /** KEY strategy: how long the response is replayed, as {@code 24h}, {@code 30m} or ISO-8601; empty for the configured default. */
    String retention() default "";

    /** KEY strategy: how long a running request holds the key before another may take over; empty for the default. */
    String lease() default "";

    /** KEY strategy: request headers that are part of the fingerprint. */
    String[] fingerprintHeaders() default {};

    /** Whether an exception or a 5xx answer frees the key (KEY) or restores the token (TOKEN). */
    FailureMode onFailure() default FailureMode.DEFAULT;

    /**
     * TOKEN strategy: the scope the token must have been issued for; empty accepts tokens issued
     * without a scope. {@code {name}} placeholders are replaced by the handler's path variables, so
     * {@code "seckill:{activityId}"} binds each token to one flash sale (a placeholder that is not a
     * path variable of the mapping fails start-up).
     */
    String scope() default "";

    /** What to do with the key or token when the method fails. */
    enum FailureMode {
        /** KEY: release (a retry executes); TOKEN: keep consumed (the client fetches a new token). */
        DEFAULT,
        /** KEY: release; TOKEN: restore the token so the client may retry with it. */
        RETRYABLE,
        /** KEY: keep the key in progress until its lease ends; TOKEN: keep consumed. */
        KEEP
    }
}
