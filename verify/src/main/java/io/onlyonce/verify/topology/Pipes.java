package io.onlyonce.verify.topology;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** The proxies' shared pieces: a cached pool of daemon threads and quiet byte copying. */
final class Pipes {

    private Pipes() {
    }

    /** A cached thread pool whose threads are daemons named {@code prefix-N}. */
    static ExecutorService daemonPool(String prefix) {
        AtomicInteger count = new AtomicInteger();
        ThreadFactory factory = runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        return Executors.newCachedThreadPool(factory);
    }

    /** Copies {@code from} to {@code to} until either ends; returns the bytes copied. */
    static long copy(Socket from, Socket to) {
        long total = 0;
        byte[] buffer = new byte[16 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
                out.flush();
                total += n;
            }
        } catch (IOException e) {
            // a closed or reset side ends the copy
        }
        return total;
    }

    static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception e) {
            // closing anyway
        }
    }
}
