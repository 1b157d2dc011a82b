package io.onlyonce.messaging;

import io.onlyonce.IdempotencyKey;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A message to publish through the outbox: a stable id, where it goes, a JSON payload and string
 * headers (the {@code X-Request-ID} of the request that caused it travels here).
 *
 * <p>The id is derived from the business id and the action ({@link #id(String, String)}), so that a
 * business event recorded twice, or re-sent by the relay, is always the same message: the outbox
 * keeps it once, and consumers' inboxes drop its duplicates.
 *
 * @param id 1 to 255 visible ASCII characters, stable across re-sends
 * @param exchange the exchange (topic) it is published to
 * @param routingKey the routing key
 * @param payload the body, JSON text
 * @param headers header names and values, in order
 */
public record OutboxMessage(String id, String exchange, String routingKey, String payload, Map<String, String> headers) {

    public OutboxMessage {
        if (id == null || !IdempotencyKey.isValidName(id)) {
            throw new IllegalArgumentException("a message id is 1 to 255 visible ASCII characters");
        }
        if (exchange == null || routingKey == null || payload == null || headers == null) {
            throw new IllegalArgumentException("exchange, routingKey, payload and headers are required");
        }
        headers = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(headers));
    }

    /**
     * The id of the message that {@code action} on {@code businessId} produces, for example
     * {@code id("202611301234", "paid")} is {@code 202611301234_paid}; a result that is not a valid
     * id (too long, not ASCII) is hashed as {@link IdempotencyKey#derivedName} does.
     */
    public static String id(String businessId, String action) {
        return IdempotencyKey.derivedName(businessId + "_" + action);
    }
}
