package io.onlyonce.example.seckill.fastpath;

import io.onlyonce.example.seckill.auth.CurrentUser;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/seckill/reservations/{reservationId}}: where the caller's reservation stands
 * ({@code QUEUED}, then {@code ORDERED} with its order or {@code FAILED} with a reason). Another
 * user's reservation is 404, as an unknown one is.
 */
@RestController
@ConditionalOnBooleanProperty(name = "seckill.fast-path.enabled")
public class ReservationController {

    private final Reservations reservations;

    public ReservationController(Reservations reservations) {
        this.reservations = reservations;
    }

    @GetMapping("/api/seckill/reservations/{reservationId}")
    public Reservations.ReservationView get(@PathVariable String reservationId, @AuthenticationPrincipal Jwt jwt) {
        return reservations.status(CurrentUser.of(jwt), reservationId);
    }
}
