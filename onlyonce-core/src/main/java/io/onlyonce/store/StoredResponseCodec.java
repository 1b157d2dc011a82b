package io.onlyonce.store;

import io.onlyonce.StoredResponse;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A compact binary form of a {@link StoredResponse} for stores that keep one value per record:
 * version byte, status (2 bytes), header count (2 bytes), each header as two modified-UTF-8
 * strings, then the body to the end.
 */
public final class StoredResponseCodec {

    private static final int VERSION = 1;

    private StoredResponseCodec() {
    }

    public static byte[] encode(StoredResponse response) {
        byte[] body = response.body();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(body.length + 16);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeShort(response.status());
            out.writeShort(response.headers().size());
            for (StoredResponse.Header header : response.headers()) {
                out.writeUTF(header.name());
                out.writeUTF(header.value());
            }
            out.write(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    public static StoredResponse decode(byte[] encoded) {
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(encoded))) {
            int version = in.readUnsignedByte();
            if (version != VERSION) {
                throw new IllegalArgumentException("unknown stored response version " + version);
            }
            int status = in.readUnsignedShort();
            int count = in.readUnsignedShort();
            List<StoredResponse.Header> headers = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                headers.add(new StoredResponse.Header(in.readUTF(), in.readUTF()));
            }
            return new StoredResponse(status, headers, in.readAllBytes());
        } catch (IOException e) {
            throw new IllegalArgumentException("corrupt stored response", e);
        }
    }
}
