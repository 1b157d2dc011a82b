package io.onlyonce.spring.testapp;

import io.onlyonce.fixtures.RedisSales;
import io.onlyonce.redis.AtomicOutcome;
import io.onlyonce.redis.RedisEffect;
import io.onlyonce.spring.Idempotent;
import io.onlyonce.spring.atomic.AtomicIdempotency;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * Purchases whose effect is a Redis script, run with their record (and token) in one script call:
 * a unit of the sale's stock and the buyer on its list. Only with {@code onlyonce.store=redis}.
 */
@RestController
public class AtomicPurchaseController {

    /** Where the sales' keys live: set by the test that uses them. */
    public static volatile String prefix = "oo-atomic-test:";

    static final RedisEffect TAKE = RedisEffect.of("take-unit", RedisSales.TAKE_UNIT);

    @PostMapping(path = "/atomic/{sale}/purchases", produces = MediaType.APPLICATION_JSON_VALUE)
    @Idempotent
    public ResponseEntity<byte[]> buy(@PathVariable String sale, @RequestBody Map<String, Object> body, Principal principal,
            AtomicIdempotency atomic) {
        return answer(sale, principal, atomic);
    }

    @PostMapping(path = "/atomic/{sale}/token-purchases", produces = MediaType.APPLICATION_JSON_VALUE)
    @Idempotent(strategy = Idempotent.Strategy.TOKEN, scope = "atomic:{sale}")
    public ResponseEntity<byte[]> buyWithToken(@PathVariable String sale, Principal principal, AtomicIdempotency atomic) {
        return answer(sale, principal, atomic);
    }

    private static ResponseEntity<byte[]> answer(String sale, Principal principal, AtomicIdempotency atomic) {
        AtomicOutcome outcome = atomic.run(TAKE,
                call -> call.keys(prefix + sale + ":stock", prefix + sale + ":buyers").args(principal.getName()));
        if (outcome instanceof AtomicOutcome.Declined declined) {
            // the application's own answer to a decline: nothing is stored for it
            return ResponseEntity.status(409).contentType(MediaType.APPLICATION_JSON)
                    .body(("{\"declined\":\"" + declined.text(0) + "\"}").getBytes(StandardCharsets.UTF_8));
        }
        return AtomicIdempotency.respond(((AtomicOutcome.Completed) outcome).response());
    }
}
