package io.onlyonce.spring.reactive;

import io.onlyonce.StoredResponse;
import io.onlyonce.spring.method.ReplayHeaders;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Holds back what the handler writes: its body is kept in memory, nothing is committed, until
 * {@link #send()} writes it to the client once the answer is recorded. The headers already on the
 * response when the capture starts (an outer filter's {@code X-Request-ID}) belong to each request
 * and are not part of the recorded answer.
 */
final class RecordingResponse extends ServerHttpResponseDecorator {

    private final Map<String, List<String>> before = new LinkedHashMap<>();
    private byte @Nullable [] body;

    RecordingResponse(ServerHttpResponse delegate) {
        super(delegate);
        delegate.getHeaders().forEach((name, values) -> before.put(name.toLowerCase(Locale.ROOT), List.copyOf(values)));
    }

    @Override
    public Mono<Void> writeWith(Publisher<? extends DataBuffer> written) {
        return DataBufferUtils.join(Flux.from(written)).doOnNext(buffer -> {
            byte[] bytes = new byte[buffer.readableByteCount()];
            buffer.read(bytes);
            DataBufferUtils.release(buffer);
            body = bytes;
        }).then(Mono.fromRunnable(() -> {
            if (body == null) {
                body = new byte[0];
            }
        }));
    }

    @Override
    public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> written) {
        return writeWith(Flux.from(written).concatMap(Flux::from));
    }

    @Override
    public Mono<Void> setComplete() {
        return Mono.empty();
    }

    /** The status the handler answered: 200 when it set none. */
    int status() {
        HttpStatusCode status = getStatusCode();
        return status == null ? 200 : status.value();
    }

    /** The body the handler wrote; empty when it wrote none. */
    byte[] body() {
        byte[] written = body;
        return written == null ? new byte[0] : written;
    }

    /**
     * The headers stored with the answer: those the handler set or changed, less the
     * {@link ReplayHeaders excluded} ones, and the Content-Type last.
     */
    List<StoredResponse.Header> replayHeaders(ReplayHeaders replayed) {
        List<StoredResponse.Header> headers = new ArrayList<>();
        HttpHeaders current = getHeaders();
        current.forEach((name, values) -> {
            if (name.equalsIgnoreCase(HttpHeaders.CONTENT_TYPE) || !replayed.isReplayed(name)
                    || values.equals(before.get(name.toLowerCase(Locale.ROOT)))) {
                return;
            }
            for (String value : values) {
                headers.add(new StoredResponse.Header(name, value));
            }
        });
        String type = current.getFirst(HttpHeaders.CONTENT_TYPE);
        if (type != null) {
            headers.add(new StoredResponse.Header(HttpHeaders.CONTENT_TYPE, type));
        }
        return headers;
    }

    /** Writes what the handler wrote to the client. */
    Mono<Void> send() {
        byte[] written = body;
        if (written == null) {
            return getDelegate().setComplete();
        }
        return getDelegate().writeWith(Mono.fromSupplier(() -> bufferFactory().wrap(written)));
    }
}
