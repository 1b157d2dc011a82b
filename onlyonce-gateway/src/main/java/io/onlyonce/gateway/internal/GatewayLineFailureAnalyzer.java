package io.onlyonce.gateway.internal;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns the {@link GatewayLineCheck}'s refusal into Spring Boot's "APPLICATION FAILED TO START" report. */
class GatewayLineFailureAnalyzer extends AbstractFailureAnalyzer<GatewayLineCheck.UnsupportedLine> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, GatewayLineCheck.UnsupportedLine cause) {
        return new FailureAnalysis("OnlyOnce: " + cause.getMessage(), GatewayLineCheck.ACTION, cause);
    }
}
