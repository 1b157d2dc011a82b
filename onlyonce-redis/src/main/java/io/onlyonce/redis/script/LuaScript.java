package io.onlyonce.redis.script;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A Lua script and its SHA-1 digest, computed here exactly as {@code SCRIPT LOAD} computes it, so
 * that {@code EVALSHA} can be tried without a round trip to load the script first. Make one per
 * script, once (a constant), and run it with a {@link ScriptRunner}. Immutable.
 */
public final class LuaScript {

    private final String name;
    private final byte[] source;
    private final String sha;

    /**
     * @param name a short name for messages, for example {@code "claim"}
     * @param source the Lua source
     */
    public LuaScript(String name, String source) {
        this.name = Objects.requireNonNull(name, "name");
        this.source = source.getBytes(StandardCharsets.UTF_8);
        try {
            this.sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(this.source));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required by every Java platform", e);
        }
    }

    /** The short name given for messages. */
    public String name() {
        return name;
    }

    /** The source in UTF-8 (a copy). */
    public byte[] source() {
        return source.clone();
    }

    /** The lower-case hex SHA-1 of the source. */
    public String sha() {
        return sha;
    }

    @Override
    public String toString() {
        return "LuaScript[" + name + ", " + sha + "]";
    }
}
