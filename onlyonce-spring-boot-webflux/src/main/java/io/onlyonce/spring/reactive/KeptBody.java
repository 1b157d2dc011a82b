package io.onlyonce.spring.reactive;

import io.onlyonce.http.RequestFingerprint;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.codec.FormHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.http.codec.multipart.MultipartHttpMessageReader;
import org.springframework.http.codec.multipart.Part;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebExchangeDecorator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A request body that {@link ReactiveIdempotency} read whole to fingerprint it, served again to the
 * handler: as bytes ({@code getBody()}), as a form ({@code getFormData()}) and as multipart data
 * ({@code getMultipartData()}, which {@code @RequestPart} reads too). The exchange's own form and
 * multipart data would read the body already consumed, and fail or find nothing. Multipart data is
 * read with the application's multipart reader ({@code spring.webflux.multipart.*}, its codecs), and
 * the parts it stored on disk are deleted once the request ends.
 *
 * <p>For the fingerprint, a multipart body is read by its parts, as Spring MVC reads it: each part's
 * name, file name, content type and the SHA-256 of its content, in the order sent
 * ({@link RequestFingerprint.Body.Multipart}), so that the same upload with another boundary is the
 * same request, and a retry answered by an instance on the other stack is recognised.
 */
final class KeptBody {

    private static final FormHttpMessageReader FORM_READER = new FormHttpMessageReader();
    private static final ResolvableType FORM_DATA = ResolvableType.forClassWithGenerics(MultiValueMap.class, String.class,
            String.class);
    private static final ResolvableType MULTIPART_DATA = ResolvableType.forClassWithGenerics(MultiValueMap.class,
            String.class, Part.class);
    private static final ResolvableType PART = ResolvableType.forClass(Part.class);

    private final HttpMessageReader<MultiValueMap<String, Part>> multipartReader;
    private final DefaultPartHttpMessageReader fingerprintReader;

    /**
     * @param codecs the application's codecs, whose multipart reader serves the handler
     * @param maxBytes the largest body kept: the parts read for the fingerprint stay in memory up to it
     */
    @SuppressWarnings("unchecked")
    KeptBody(ServerCodecConfigurer codecs, int maxBytes) {
        this.multipartReader = codecs.getReaders().stream()
                .filter(reader -> reader.canRead(MULTIPART_DATA, MediaType.MULTIPART_FORM_DATA))
                .findFirst()
                .map(reader -> (HttpMessageReader<MultiValueMap<String, Part>>) reader)
                .orElseGet(() -> new MultipartHttpMessageReader(new DefaultPartHttpMessageReader()));
        this.fingerprintReader = new DefaultPartHttpMessageReader();
        this.fingerprintReader.setMaxInMemorySize(Math.max(maxBytes, 1));
    }

    /** Whether {@code request}'s body is multipart, fingerprinted by its parts. */
    static boolean isMultipart(ServerHttpRequest request) {
        MediaType type = request.getHeaders().getContentType();
        return type != null && type.getType().equalsIgnoreCase("multipart");
    }

    /**
     * The parts of the multipart body {@code bytes} of {@code request}, in the order sent, as the
     * fingerprint takes them; an error when the body is not well-formed multipart.
     */
    Mono<List<RequestFingerprint.Part>> parts(ServerHttpRequest request, byte[] bytes) {
        return fingerprintReader.read(PART, replaying(request, bytes, DefaultDataBufferFactory.sharedInstance), Map.of())
                .concatMap(part -> DataBufferUtils.join(part.content())
                        .map(KeptBody::digest)
                        .defaultIfEmpty(sha256().digest())
                        .map(content -> new RequestFingerprint.Part(part.name(),
                                part.headers().getContentDisposition().getFilename(),
                                part.headers().getFirst(HttpHeaders.CONTENT_TYPE), content)))
                .collectList();
    }

    /** The exchange whose request body is {@code bytes}, which can be read again, as bytes, a form or multipart data. */
    Exchange exchange(ServerWebExchange exchange, byte @Nullable [] bytes) {
        if (bytes == null) {
            return new Exchange(exchange, Mono.empty());
        }
        ServerHttpRequest request = replaying(exchange.getRequest(), bytes, exchange.getResponse().bufferFactory());
        ServerWebExchange replaying = exchange.mutate().request(request).build();
        MediaType type = request.getHeaders().getContentType();
        if (type != null && MediaType.APPLICATION_FORM_URLENCODED.includes(type)) {
            Mono<MultiValueMap<String, String>> form = FORM_READER.readMono(FORM_DATA, request, Map.of())
                    .switchIfEmpty(Mono.fromSupplier(LinkedMultiValueMap::new))
                    .cache();
            return new Exchange(new ServerWebExchangeDecorator(replaying) {
                @Override
                public Mono<MultiValueMap<String, String>> getFormData() {
                    return form;
                }
            }, Mono.empty());
        }
        if (!isMultipart(request)) {
            return new Exchange(replaying, Mono.empty());
        }
        AtomicBoolean read = new AtomicBoolean();
        Mono<MultiValueMap<String, Part>> multipart = multipartReader.readMono(MULTIPART_DATA, request, Map.of())
                .switchIfEmpty(Mono.fromSupplier(LinkedMultiValueMap::new))
                .doOnSubscribe(subscription -> read.set(true))
                .cache();
        Mono<Void> cleanup = Mono.defer(() -> !read.get() ? Mono.<Void>empty() : multipart.onErrorComplete()
                .flatMapIterable(Map::values)
                .flatMapIterable(parts -> parts)
                .flatMap(part -> part.delete().onErrorComplete())
                .then());
        return new Exchange(new ServerWebExchangeDecorator(replaying) {
            @Override
            public Mono<MultiValueMap<String, Part>> getMultipartData() {
                return multipart;
            }

            @Override
            public Mono<Void> cleanupMultipart() {
                return cleanup;
            }
        }, cleanup);
    }

    /**
     * An exchange that serves the kept body.
     *
     * @param exchange the exchange to give the handler
     * @param cleanup deletes what reading its multipart data stored; run it once the request ended
     */
    record Exchange(ServerWebExchange exchange, Mono<Void> cleanup) {
    }

    private static ServerHttpRequest replaying(ServerHttpRequest request, byte[] bytes, DataBufferFactory buffers) {
        return new ServerHttpRequestDecorator(request) {
            @Override
            public Flux<DataBuffer> getBody() {
                return Flux.defer(() -> bytes.length == 0 ? Flux.<DataBuffer>empty() : Flux.just(buffers.wrap(bytes)));
            }
        };
    }

    private static byte[] digest(DataBuffer buffer) {
        try {
            byte[] bytes = new byte[buffer.readableByteCount()];
            buffer.read(bytes);
            return sha256().digest(bytes);
        } finally {
            DataBufferUtils.release(buffer);
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
