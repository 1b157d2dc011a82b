package io.onlyonce.spring.web;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * A request body kept for the handler after it was read to be fingerprinted: in memory up to
 * {@code threshold} bytes, in a temporary file beyond. Not thread-safe; {@link #delete} removes the
 * file.
 */
final class Spool extends OutputStream {

    private final int threshold;
    private @Nullable ByteArrayOutputStream memory = new ByteArrayOutputStream();
    private @Nullable Path file;
    private @Nullable OutputStream out;

    Spool(int threshold) {
        this.threshold = threshold;
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
        ByteArrayOutputStream held = memory;
        if (held != null && held.size() + length <= threshold) {
            held.write(bytes, offset, length);
            return;
        }
        if (held != null) {
            Path spilled = Files.createTempFile("onlyonce-body-", ".tmp");
            file = spilled;
            out = Files.newOutputStream(spilled);
            held.writeTo(out);
            memory = null;
        }
        java.util.Objects.requireNonNull(out).write(bytes, offset, length);
    }

    @Override
    public void close() throws IOException {
        if (out != null) {
            out.close();
        }
    }

    /** What was written, from the start; call after {@link #close}. */
    InputStream toInputStream() throws IOException {
        ByteArrayOutputStream held = memory;
        return held != null ? new ByteArrayInputStream(held.toByteArray())
                : Files.newInputStream(java.util.Objects.requireNonNull(file));
    }

    /** Deletes the temporary file, if the body needed one. */
    void delete() {
        Path spilled = file;
        file = null;
        if (spilled != null) {
            try {
                Files.deleteIfExists(spilled);
            } catch (IOException e) {
                // a leftover temporary file is harmless
            }
        }
    }
}
