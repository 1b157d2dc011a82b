package io.onlyonce.example.seckill.demo;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains {@link InsecureConfigurationException} in the "APPLICATION FAILED TO START" report. */
class InsecureConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<InsecureConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InsecureConfigurationException cause) {
        String description = "The service is not in demo mode (a profile was given, so the default 'demo' profile is off,"
                + " or seckill.demo.enabled=false), and these secrets would let anyone forge a login, a one-time token"
                + " or a payment:\n  - "
                + String.join("\n  - ", cause.problems());
        String action = "Set each of SECKILL_JWT_SECRET, SECKILL_PAYMENT_SECRET and ONLYONCE_TOKEN_SECRET to a secret of"
                + " at least 32 bytes (the same on every instance), for example: export SECKILL_JWT_SECRET=$(openssl rand"
                + " -base64 48). For a local demo instead, add the 'demo' profile (--spring.profiles.active=<yours>,demo),"
                + " which uses the published demo secrets and must never face a network.";
        return new FailureAnalysis(description, action, cause);
    }
}
