package io.onlyonce.messaging;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A message as a consumer receives it.
 *
 * @param id the message id the producer set; null or malformed when the producer set none or a
 *     broken one (such a message is dead-lettered, never processed)
 * @param exchange the exchange it was published to
 * @param routingKey its routing key
 * @param payload the body as text
 * @param headers its string headers
 * @param redelivered whether the broker delivered it before (the consumer may have crashed)
 */
public record InboundMessage(@Nullable String id, String exchange, String routingKey, String payload,
        Map<String, String> headers, boolean redelivered) {

    public InboundMessage {
        headers = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(headers));
    }
}
