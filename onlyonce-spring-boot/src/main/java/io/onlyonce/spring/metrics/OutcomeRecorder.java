package io.onlyonce.spring.metrics;

/**
 * Receives one event per decision of a layer. Implementations must be fast and must not throw.
 * Layers: {@code gateway} (request window), {@code business} (@Idempotent). Outcomes:
 * {@code executed}, {@code replayed}, {@code in_progress}, {@code mismatch}, {@code missing_key},
 * {@code duplicate_token}, {@code token_expired} (a genuine token that expired unused), {@code token_rejected} (forged, malformed or bound to another caller or
 * scope), {@code window_duplicate}, {@code store_error}.
 */
@FunctionalInterface
public interface OutcomeRecorder {

    String LAYER_GATEWAY = "gateway";
    String LAYER_BUSINESS = "business";

    void record(String layer, String outcome, String endpoint);
}
