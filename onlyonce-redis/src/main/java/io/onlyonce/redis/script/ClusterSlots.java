package io.onlyonce.redis.script;

import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;
import java.util.StringJoiner;

/**
 * The rule of Redis Cluster for a script with several keys: every key must hash to one slot, or
 * the node refuses the call ({@code CROSSSLOT}). A {@link ScriptPort} on a Cluster connection checks
 * it before sending, so a call that breaks it is refused with the keys and their slots named, and
 * nothing reaches the server.
 */
public final class ClusterSlots {

    private ClusterSlots() {
    }

    /**
     * Refuses keys that do not all hash to one Cluster slot.
     *
     * @param operation what the caller is doing, for the message
     * @param keys the keys of one script call
     * @throws IllegalArgumentException naming every key and its slot when the slots differ
     */
    public static void requireOneSlot(String operation, byte[][] keys) {
        if (keys.length < 2) {
            return;
        }
        int first = SlotHash.getSlot(keys[0]);
        for (int i = 1; i < keys.length; i++) {
            if (SlotHash.getSlot(keys[i]) != first) {
                StringJoiner named = new StringJoiner(", ");
                for (byte[] key : keys) {
                    named.add(new String(key, StandardCharsets.UTF_8) + " (slot " + SlotHash.getSlot(key) + ")");
                }
                throw new IllegalArgumentException(operation + ": the keys of one script call must hash to one "
                        + "Redis Cluster slot (use a hash tag), not " + named);
            }
        }
    }
}
