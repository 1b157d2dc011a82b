package io.onlyonce.redis;

import io.lettuce.core.api.StatefulConnection;
import io.onlyonce.redis.internal.ConnectionHolder;
import io.onlyonce.redis.internal.LettuceScriptPort;
import io.onlyonce.redis.script.ScriptRunner;
import java.time.Duration;

/** A {@link ScriptRunner} straight on a Lettuce connection the caller keeps (the stores' {@code of(connection, ...)} factories use it). */
public final class LettuceScripts {

    private LettuceScripts() {
    }

    /**
     * A runner straight on a Lettuce standalone (or Sentinel) or Cluster connection, which must use
     * {@code ByteArrayCodec}; the connection stays the caller's.
     *
     * @param budget the budget of each call, positive
     * @throws IllegalArgumentException for a connection that is neither standalone nor Cluster
     */
    public static ScriptRunner runner(StatefulConnection<byte[], byte[]> connection, Duration budget) {
        return ScriptRunner.of(new LettuceScriptPort(ConnectionHolder.of(connection)), budget);
    }
}
