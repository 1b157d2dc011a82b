package io.onlyonce.spring.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Whether one-time tokens can be signed so that every instance accepts them. With a shared store
 * ({@code redis}, {@code jdbc}) and no {@code onlyonce.token.secrets}, each instance would sign with a
 * random secret of its own: then the token endpoint is not registered, and a TOKEN method fails
 * start-up; an application without TOKEN methods needs no secret.
 */
public final class TokenSigning {

    private TokenSigning() {
    }

    /** Whether tokens are on, but cannot be signed for every instance. */
    public static boolean unsigned(OnlyOnceProperties properties) {
        return properties.token().enabled() && properties.store().isShared() && properties.token().secrets().isEmpty();
    }

    /** {@link #unsigned(OnlyOnceProperties)} for the properties bound from {@code environment}. */
    public static boolean unsigned(Environment environment) {
        return unsigned(Binder.get(environment).bindOrCreate("onlyonce", OnlyOnceProperties.class));
    }

    /** Matches unless tokens are {@link #unsigned(Environment) unsigned}. */
    public static final class Signed extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return unsigned(context.getEnvironment())
                    ? ConditionOutcome.noMatch("onlyonce.token.secrets is not set for a shared onlyonce.store")
                    : ConditionOutcome.match("one-time tokens can be signed for every instance");
        }
    }
}
