package io.onlyonce.example.seckill.ids;

import io.onlyonce.example.seckill.auth.CurrentUser;
import io.onlyonce.example.seckill.web.InvalidFieldsException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import java.time.ZoneId;
import java.util.HashMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.CacheControl;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.validation.MapBindingResult;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/idempotent/generate?scope=order}: a new business id for the caller, one call per
 * purchase intent, for every channel (app, mini-program, H5 page) to make its ids the same way.
 * Stateless: nothing is stored, any instance answers. Counted against
 * {@code seckill.limits.id-requests} per user. A client that cannot reach it makes the id itself
 * in the same form (the web page does).
 */
@RestController
public class BusinessIdController {

    private static final Logger log = LoggerFactory.getLogger(BusinessIdController.class);

    private final BusinessIdGenerator ids;
    private final ZoneId local = ZoneId.systemDefault();

    public BusinessIdController(BusinessIdGenerator ids) {
        this.ids = ids;
    }

    @GetMapping("/api/idempotent/generate")
    @Operation(summary = "A new business id for the caller",
            description = "Answers `{businessId, scope, userId, issuedAt}`; send `businessId` as the Idempotency-Key of"
                    + " that purchase intent and again with every retry of it. Time-ordered, unique across instances;"
                    + " never cached (Cache-Control: no-store).")
    public ResponseEntity<BusinessIdGenerator.Issued> generate(
            @Parameter(description = "what the id is for: `order`") @RequestParam(defaultValue = "order") String scope,
            @AuthenticationPrincipal Jwt jwt) {
        if (!BusinessIdGenerator.SCOPES.containsKey(scope)) {
            MapBindingResult errors = new MapBindingResult(new HashMap<>(), "request");
            errors.rejectValue("scope", "OneOf",
                    new Object[] {"scope", String.join(", ", new TreeSet<>(BusinessIdGenerator.SCOPES.keySet()))}, null);
            throw new InvalidFieldsException(errors);
        }
        CurrentUser user = CurrentUser.of(jwt);
        BusinessIdGenerator.Issued issued = ids.next(user.id(), scope);
        log.debug("business id {} for user {}, issued at {}", issued.businessId(), user.id(), issued.times(local));
        return ResponseEntity.ok().cacheControl(CacheControl.noStore()).body(issued);
    }
}
