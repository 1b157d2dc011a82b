package io.onlyonce.example.seckill.seckill;

import io.onlyonce.example.seckill.order.OrderView;
import jakarta.validation.Valid;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * The flash-sale order without {@code @Idempotent} ({@code seckill.onlyonce.enabled=false}): the
 * token is neither checked nor consumed, only turned into the business id, so duplicates reach the
 * database, whose unique keys (business id, live key) are the only defence. The benchmark's baseline.
 */
@RestController
@ConditionalOnBooleanProperty(name = "seckill.onlyonce.enabled", havingValue = false)
public class UnprotectedSeckillOrderController {

    private final SeckillService seckill;

    public UnprotectedSeckillOrderController(SeckillService seckill) {
        this.seckill = seckill;
    }

    @PostMapping(path = "/api/seckill/activities/{activityId}/orders", consumes = MediaType.APPLICATION_JSON_VALUE)
    public ResponseEntity<OrderView> buy(@PathVariable long activityId,
            @RequestHeader(SeckillOrderController.TOKEN_HEADER) String token,
            @Valid @RequestBody SeckillOrderRequest request, @AuthenticationPrincipal Jwt jwt) {
        return SeckillOrderController.placed(seckill, activityId, token, request, jwt);
    }
}
