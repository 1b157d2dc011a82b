package io.onlyonce.gateway.internal;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A request body read once: each chunk is digested (SHA-256) as it arrives, copied into one array
 * and released at once, so the body is held at most once and never beyond {@code maxBytes}. The
 * request handed on downstream replays the same bytes.
 *
 * @param bytes the whole body
 * @param sha256 its SHA-256 digest
 */
public record RequestBody(byte[] bytes, byte[] sha256) {

    /** A body over the limit: declared by {@code Content-Length} or found while reading. */
    public static final class TooLargeException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TooLargeException() {
            super("request body over the limit", null, false, false);
        }
    }

    /**
     * Reads the body of {@code request}.
     *
     * @return the body; an error {@link TooLargeException} when it is larger than {@code maxBytes}
     */
    public static Mono<RequestBody> read(ServerHttpRequest request, long maxBytes) {
        long declared = request.getHeaders().getContentLength();
        if (declared > maxBytes) {
            return Mono.error(new TooLargeException());
        }
        return Mono.defer(() -> {
            Accumulator accumulator = new Accumulator(maxBytes, declared);
            return request.getBody()
                    .doOnNext(chunk -> {
                        try {
                            accumulator.append(chunk);
                        } finally {
                            DataBufferUtils.release(chunk);
                        }
                    })
                    .then(Mono.fromSupplier(accumulator::finish));
        });
    }

    /** {@code request} with this body as its body, byte for byte. */
    public ServerHttpRequest replaying(ServerHttpRequest request, DataBufferFactory buffers) {
        byte[] body = bytes;
        return new ServerHttpRequestDecorator(request) {
            @Override
            public Flux<DataBuffer> getBody() {
                return body.length == 0 ? Flux.empty() : Flux.defer(() -> Flux.just(buffers.wrap(body)));
            }
        };
    }

    @Override
    public String toString() {
        return "RequestBody[" + bytes.length + " bytes]";
    }

    private static final class Accumulator {
        private final long maxBytes;
        private final MessageDigest sha256;
        private byte[] bytes;
        private int size;

        Accumulator(long maxBytes, long declared) {
            this.maxBytes = maxBytes;
            this.bytes = new byte[(int) Math.min(maxBytes, declared > 0 ? declared : 8192)];
            try {
                this.sha256 = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 is required by every Java platform", e);
            }
        }

        void append(DataBuffer chunk) {
            int n = chunk.readableByteCount();
            if (size + (long) n > maxBytes) {
                throw new TooLargeException();
            }
            if (size + n > bytes.length) {
                bytes = Arrays.copyOf(bytes, (int) Math.min(maxBytes, Math.max(size + (long) n, 2L * bytes.length)));
            }
            chunk.read(bytes, size, n);
            sha256.update(bytes, size, n);
            size += n;
        }

        RequestBody finish() {
            return new RequestBody(size == bytes.length ? bytes : Arrays.copyOf(bytes, size), sha256.digest());
        }
    }
}
