package io.onlyonce.spring.method;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.IdempotencyKey;
import org.junit.jupiter.api.Test;

/** The record scope of a service method call: the method, and the caller's name when there is one. */
class MethodScopeTest {

    @Test
    void theCallersNameFollowsTheMethodAndTwoCallersNeverShareAScope() {
        assertThat(IdempotentInvocationInterceptor.scope("a.RefundService#refund", null))
                .isEqualTo("method a.RefundService#refund");
        assertThat(IdempotentInvocationInterceptor.scope("a.RefundService#refund", "alice"))
                .isEqualTo("method a.RefundService#refund alice");
        assertThat(IdempotentInvocationInterceptor.scope("a.RefundService#refund", "bob"))
                .isNotEqualTo(IdempotentInvocationInterceptor.scope("a.RefundService#refund", "alice"));
    }

    @Test
    void aNameThatIsNotWellFormedTextOrTooLongIsHashedIntoAValidScopeWithoutAliasing() {
        String lone = IdempotentInvocationInterceptor.scope("a.S#m", "al\uD800ice");
        String other = IdempotentInvocationInterceptor.scope("a.S#m", "al\uD801ice");
        assertThat(new IdempotencyKey(lone, "k").scope()).isEqualTo(lone);
        assertThat(lone).isNotEqualTo(other);
        String control = IdempotentInvocationInterceptor.scope("a.S#m", "al\u0001ice");
        assertThat(control).startsWith("method sha256:");
        assertThat(new IdempotencyKey(control, "k")).isNotNull();
        String longName = IdempotentInvocationInterceptor.scope("a.S#m", "x".repeat(600));
        assertThat(longName.length()).isLessThanOrEqualTo(IdempotencyKey.MAX_SCOPE_LENGTH);
    }
}
