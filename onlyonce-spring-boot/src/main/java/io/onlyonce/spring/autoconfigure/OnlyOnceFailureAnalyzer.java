package io.onlyonce.spring.autoconfigure;

import io.onlyonce.spring.OnlyOnceConfigurationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns an {@link OnlyOnceConfigurationException}, wherever it sits in the cause chain of a failed
 * start-up (often several bean creations down, under a bean of another library), into Spring Boot's
 * "APPLICATION FAILED TO START" report with its description and action.
 */
class OnlyOnceFailureAnalyzer extends AbstractFailureAnalyzer<OnlyOnceConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, OnlyOnceConfigurationException cause) {
        return new FailureAnalysis("OnlyOnce: " + cause.description(), cause.action(), cause);
    }
}
