package io.onlyonce.spring.reactive;

import io.onlyonce.fixtures.RedisSales;
import io.onlyonce.redis.AtomicOutcome;
import io.onlyonce.redis.RedisEffect;
import io.onlyonce.spring.Idempotent;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * Purchases whose effect is a Redis script, run with their record (and token) in one script call
 * without blocking: a unit of the sale's stock and the buyer on its list. Only with
 * {@code onlyonce.store=redis}: added to the test application by the tests that use it (outside its
 * scanned package, which the Spring Boot 3.5 suite compiles without the test fixtures).
 */
@RestController
public class ReactiveAtomicPurchaseController {

    /** Where the sales' keys live: set by the test that uses them. */
    public static volatile String prefix = "oo-reactive-atomic-test:";

    static final RedisEffect TAKE = RedisEffect.of("take-unit", RedisSales.TAKE_UNIT);

    @PostMapping(path = "/atomic/{sale}/purchases", produces = MediaType.APPLICATION_JSON_VALUE)
    @Idempotent
    public Mono<ResponseEntity<byte[]>> buy(@PathVariable String sale, @RequestBody Map<String, Object> body,
            Principal principal, ReactiveAtomicIdempotency atomic) {
        return answer(sale, principal, atomic);
    }

    @PostMapping(path = "/atomic/{sale}/token-purchases", produces = MediaType.APPLICATION_JSON_VALUE)
    @Idempotent(strategy = Idempotent.Strategy.TOKEN, scope = "atomic:{sale}")
    public Mono<ResponseEntity<byte[]>> buyWithToken(@PathVariable String sale, Principal principal,
            ReactiveAtomicIdempotency atomic) {
        return answer(sale, principal, atomic);
    }

    /** Not {@code @Idempotent}: the argument refuses to run. */
    @PostMapping(path = "/atomic/{sale}/unprotected", produces = MediaType.APPLICATION_JSON_VALUE)
    public Mono<ResponseEntity<byte[]>> unprotected(@PathVariable String sale, Principal principal,
            ReactiveAtomicIdempotency atomic) {
        return answer(sale, principal, atomic);
    }

    private static Mono<ResponseEntity<byte[]>> answer(String sale, Principal principal, ReactiveAtomicIdempotency atomic) {
        return atomic.run(TAKE, call -> call.keys(prefix + sale + ":stock", prefix + sale + ":buyers").args(principal.getName()))
                .map(outcome -> outcome instanceof AtomicOutcome.Declined declined
                        // the application's own answer to a decline: nothing is stored for it
                        ? ResponseEntity.status(409).contentType(MediaType.APPLICATION_JSON)
                                .body(("{\"declined\":\"" + declined.text(0) + "\"}").getBytes(StandardCharsets.UTF_8))
                        : ReactiveAtomicIdempotency.respond(((AtomicOutcome.Completed) outcome).response()));
    }

    /** An application's catch-all, which must not turn OnlyOnce's answers into its own. */
    @ExceptionHandler(RuntimeException.class)
    ResponseEntity<String> failed(RuntimeException e) {
        return ResponseEntity.status(500).contentType(MediaType.TEXT_PLAIN).body("application error: " + e.getMessage());
    }
}
