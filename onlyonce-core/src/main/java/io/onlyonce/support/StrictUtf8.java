package io.onlyonce.support;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Text to UTF-8 without loss. {@code String.getBytes(UTF_8)} replaces an unpaired surrogate with
 * {@code ?}, so {@code "alice\uD800"} and {@code "alice?"} would become the same bytes: the same
 * Redis key, the same database row, the same token binding. Every text that decides identity goes
 * through {@link #encode}, which refuses such text instead.
 */
public final class StrictUtf8 {

    private StrictUtf8() {
    }

    /** Whether {@code text} is well-formed UTF-16: every surrogate is half of a pair. */
    public static boolean isWellFormed(CharSequence text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
                    return false;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The UTF-8 bytes of {@code text}.
     *
     * @throws IllegalArgumentException when {@code text} holds an unpaired surrogate
     */
    public static byte[] encode(String text) {
        try {
            ByteBuffer bytes = StandardCharsets.UTF_8.newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(text));
            byte[] result = new byte[bytes.remaining()];
            bytes.get(result);
            return result;
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("text is not well-formed UTF-16 (an unpaired surrogate)", e);
        }
    }
}
