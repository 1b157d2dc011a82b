package io.onlyonce.verify.history;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Appends operations to a JSON Lines file as they happen, numbering them; thread-safe (every
 * client thread and the nemesis write through one writer). Each line is flushed, so a history
 * survives the harness itself dying.
 */
public final class HistoryWriter implements AutoCloseable {

    private final BufferedWriter out;
    private final long start = System.nanoTime();
    private final List<Op> ops = new ArrayList<>();

    public HistoryWriter(Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Records one operation now and returns it. */
    public synchronized Op record(String process, OpType type, String f, Map<String, Object> value) {
        Op op = new Op(ops.size(), System.nanoTime() - start, process, type, f, value);
        ops.add(op);
        try {
            out.write(History.line(op));
            out.newLine();
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return op;
    }

    /** Nanoseconds since the run started. */
    public long now() {
        return System.nanoTime() - start;
    }

    /** What was recorded so far. */
    public synchronized History history() {
        return new History(ops);
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
