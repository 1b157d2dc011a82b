package io.onlyonce.example.webflux;

import io.onlyonce.spring.Idempotent;
import java.security.Principal;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** {@code POST /payments}: an annotated WebFlux handler, idempotent by its Idempotency-Key header. */
@RestController
public class PaymentController {

    private final Ledger ledger;

    public PaymentController(Ledger ledger) {
        this.ledger = ledger;
    }

    @Idempotent
    @PostMapping("/payments")
    public Mono<ResponseEntity<Payment>> pay(@RequestBody PaymentRequest request, Mono<Principal> principal) {
        return principal.flatMap(user -> ledger.pay(user.getName(), request))
                .map(payment -> ResponseEntity.status(HttpStatus.CREATED)
                        .header("Location", "/payments/" + payment.id())
                        .body(payment));
    }
}
