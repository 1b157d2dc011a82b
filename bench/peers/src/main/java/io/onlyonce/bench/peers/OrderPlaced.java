package io.onlyonce.bench.peers;

import org.springframework.modulith.events.Externalized;

/**
 * The business event of every contender: one per order. Its JSON form, the message body on the
 * broker for all of them, is {@code {"orderId":"order-7","seq":7,"item":"phone","quantity":1}}; the
 * consumer reads {@code seq} from it.
 *
 * <p>The Spring Modulith contender externalizes it to Kafka: the topic is the run's
 * ({@code peersDestination} bean), the record key the order id (the {@code target::key} form of
 * {@code @Externalized}, Spring Modulith reference "Externalizing Events"). The annotation is
 * inert for the other contenders.
 *
 * @param orderId the order (and message) id
 * @param seq the number of the message in the run, from 0
 * @param item the ordered item
 * @param quantity how many
 */
@Externalized("#{@peersDestination.name()}::#{#this.orderId()}")
public record OrderPlaced(String orderId, long seq, String item, int quantity) {

    /** The event of message {@code seq}. */
    public static OrderPlaced of(long seq) {
        return new OrderPlaced("order-" + seq, seq, "phone", 1);
    }

    /** The JSON body, as Jackson writes the record. */
    public String json() {
        return "{\"orderId\":\"" + orderId + "\",\"seq\":" + seq + ",\"item\":\"" + item + "\",\"quantity\":" + quantity + "}";
    }

    /** The {@code seq} of a JSON body, or -1 when it has none. */
    public static long seqOf(byte[] body) {
        byte[] key = {'"', 's', 'e', 'q', '"', ':'};
        outer:
        for (int i = 0; i + key.length < body.length; i++) {
            for (int k = 0; k < key.length; k++) {
                if (body[i + k] != key[k]) {
                    continue outer;
                }
            }
            long value = 0;
            int j = i + key.length;
            boolean digits = false;
            while (j < body.length && body[j] >= '0' && body[j] <= '9') {
                value = value * 10 + (body[j++] - '0');
                digits = true;
            }
            return digits ? value : -1;
        }
        return -1;
    }
}
