package io.onlyonce.store;

import io.onlyonce.StoredResponse;
import io.onlyonce.support.StrictUtf8;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A compact binary form of a {@link StoredResponse} for stores that keep one value per record:
 * version byte (2), status (2 bytes), header count (4 bytes), each header as name and value, each a
 * 4-byte length and that many UTF-8 bytes, then the body to the end. Every response that
 * {@link StoredResponse} accepts encodes, whatever the number or size of its headers.
 */
public final class StoredResponseCodec {

    private static final int VERSION = 2;

    private StoredResponseCodec() {
    }

    public static byte[] encode(StoredResponse response) {
        byte[] body = response.body();
        List<byte[]> parts = new ArrayList<>(response.headers().size() * 2);
        long size = 1 + 2 + 4 + body.length;
        for (StoredResponse.Header header : response.headers()) {
            byte[] name = StrictUtf8.encode(header.name());
            byte[] value = StrictUtf8.encode(header.value());
            parts.add(name);
            parts.add(value);
            size += 8L + name.length + value.length;
        }
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("response too large to encode: " + size + " bytes");
        }
        ByteBuffer out = ByteBuffer.allocate((int) size);
        out.put((byte) VERSION).putShort((short) response.status()).putInt(response.headers().size());
        for (byte[] part : parts) {
            out.putInt(part.length).put(part);
        }
        out.put(body);
        return out.array();
    }

    /**
     * The response encoded in {@code encoded}.
     *
     * @throws IllegalArgumentException when the bytes were not made by {@link #encode}
     */
    public static StoredResponse decode(byte[] encoded) {
        try {
            ByteBuffer in = ByteBuffer.wrap(encoded);
            int version = in.get() & 0xFF;
            if (version != VERSION) {
                throw new IllegalArgumentException("unknown stored response version " + version);
            }
            int status = in.getShort() & 0xFFFF;
            int count = in.getInt();
            if (count < 0 || count > in.remaining() / 8) {
                throw new IllegalArgumentException("corrupt stored response: header count " + count);
            }
            List<StoredResponse.Header> headers = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                headers.add(new StoredResponse.Header(text(in), text(in)));
            }
            byte[] body = new byte[in.remaining()];
            in.get(body);
            return new StoredResponse(status, headers, body);
        } catch (BufferUnderflowException | CharacterCodingException e) {
            throw new IllegalArgumentException("corrupt stored response", e);
        }
    }

    private static String text(ByteBuffer in) throws CharacterCodingException {
        int length = in.getInt();
        if (length < 0 || length > in.remaining()) {
            throw new IllegalArgumentException("corrupt stored response: text length " + length);
        }
        ByteBuffer slice = in.slice();
        slice.limit(length);
        in.position(in.position() + length);
        return StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(slice)
                .toString();
    }
}
