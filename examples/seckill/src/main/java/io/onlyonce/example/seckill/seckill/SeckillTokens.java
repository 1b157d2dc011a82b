package io.onlyonce.example.seckill.seckill;

import io.onlyonce.token.IssuedToken;
import io.onlyonce.token.TokenService;
import org.springframework.stereotype.Component;

/**
 * One-time tokens bound to a user AND a flash sale: issued with the scope
 * {@code seckill:<activityId>}, and accepted by the order endpoint's
 * {@code @Idempotent(strategy = TOKEN, scope = "seckill:{activityId}")}, whose placeholder the
 * starter fills from the path. A token fetched for activity 7 and sent to activity 8 fails the
 * HMAC binding check (403 {@code idempotency-token-mismatch}) before anything is consumed.
 */
@Component
public class SeckillTokens {

    /** The token scope of the order endpoint; {@code {activityId}} is its path variable. */
    public static final String SCOPE = "seckill:{activityId}";

    private final TokenService tokens;

    public SeckillTokens(TokenService tokens) {
        this.tokens = tokens;
    }

    /** A token for {@code username} to place one order in {@code activityId}. */
    public IssuedToken issue(String username, long activityId) {
        return tokens.issue(username, "seckill:" + activityId);
    }
}
