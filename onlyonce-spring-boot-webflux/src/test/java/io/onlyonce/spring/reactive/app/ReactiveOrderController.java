package io.onlyonce.spring.reactive.app;

import io.onlyonce.spring.Idempotent;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpStatus;
import org.springframework.http.codec.multipart.FilePart;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestPart;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/** Annotated WebFlux endpoints, one per behaviour the tests observe. */
@RestController
public class ReactiveOrderController {

    private final ReactiveTestApplication.Executions executions;
    /** Holds /orders/slow until a test lets it answer. */
    private final AtomicReference<Sinks.Empty<Void>> gate = new AtomicReference<>(Sinks.empty());
    private final AtomicInteger cancelled = new AtomicInteger();

    public int cancelled() {
        return cancelled.get();
    }

    public ReactiveOrderController(ReactiveTestApplication.Executions executions) {
        this.executions = executions;
    }

    public void open() {
        gate.getAndSet(Sinks.empty()).tryEmitEmpty();
    }

    @Idempotent
    @PostMapping(path = "/orders", produces = MediaType.APPLICATION_JSON_VALUE)
    public Mono<ResponseEntity<String>> create(@RequestBody String body) {
        return Mono.fromSupplier(() -> {
            int run = executions.next("orders");
            return ResponseEntity.status(HttpStatus.CREATED).header("Location", "/orders/" + run)
                    .body("{\"run\":" + run + ",\"echo\":" + body + "}");
        });
    }

    @Idempotent
    @PostMapping(path = "/orders/plain", produces = MediaType.APPLICATION_JSON_VALUE)
    public String plain(@RequestBody String body) {
        return "{\"run\":" + executions.next("plain") + "}";
    }

    /** A form, read by the handler after the fingerprint has taken it. */
    @Idempotent
    @PostMapping(path = "/orders/form", consumes = MediaType.APPLICATION_FORM_URLENCODED_VALUE,
            produces = MediaType.APPLICATION_JSON_VALUE)
    public Mono<String> form(org.springframework.web.server.ServerWebExchange exchange) {
        return exchange.getFormData().map(form -> "{\"run\":" + executions.next("form") + ",\"item\":\""
                + form.getFirst("item") + "\"}");
    }

    @Idempotent
    @PostMapping("/orders/slow")
    public Mono<String> slow(@RequestBody String body) {
        executions.next("slow");
        Sinks.Empty<Void> current = gate.get();
        return current.asMono().then(Mono.fromSupplier(() -> "done"))
                .doOnCancel(cancelled::incrementAndGet);
    }

    /** An upload read with {@code @RequestPart}: a field and a file. */
    @Idempotent
    @PostMapping(path = "/orders/upload", consumes = MediaType.MULTIPART_FORM_DATA_VALUE,
            produces = MediaType.APPLICATION_JSON_VALUE)
    public Mono<ResponseEntity<String>> upload(@RequestPart("note") String note, @RequestPart("file") FilePart file) {
        return DataBufferUtils.join(file.content()).map(content -> {
            int size = content.readableByteCount();
            DataBufferUtils.release(content);
            return ResponseEntity.status(HttpStatus.CREATED).body("{\"run\":" + executions.next("upload") + ",\"note\":\""
                    + note + "\",\"file\":\"" + file.filename() + "\",\"size\":" + size + "}");
        });
    }

    /** The same upload read from the exchange's multipart data. */
    @Idempotent
    @PostMapping(path = "/orders/upload-parts", consumes = MediaType.MULTIPART_FORM_DATA_VALUE,
            produces = MediaType.TEXT_PLAIN_VALUE)
    public Mono<String> uploadParts(org.springframework.web.server.ServerWebExchange exchange) {
        return exchange.getMultipartData().map(parts -> "run " + executions.next("upload-parts") + ": " + parts.keySet());
    }

    /** Held back by {@link ReactiveTestApplication.HoldingFilter} before it is reached. */
    @Idempotent
    @PostMapping("/orders/held")
    public Mono<String> held(@RequestBody String body) {
        return Mono.fromSupplier(() -> "held run " + executions.next("held"));
    }

    @Idempotent
    @ResponseStatus(HttpStatus.ACCEPTED)
    @PostMapping("/orders/empty")
    public Mono<Void> empty(@RequestBody String body) {
        return Mono.fromRunnable(() -> executions.next("empty"));
    }

    @Idempotent
    @PostMapping("/orders/flaky")
    public Mono<String> flaky(@RequestBody String body) {
        return Mono.defer(() -> executions.next("flaky") == 1
                ? Mono.error(new IllegalStateException("the first attempt fails"))
                : Mono.just("second attempt"));
    }

    @Idempotent(strategy = Idempotent.Strategy.TOKEN, scope = "seckill")
    @PostMapping(path = "/seckill", produces = MediaType.APPLICATION_JSON_VALUE)
    public Mono<String> buy() {
        return Mono.fromSupplier(() -> "{\"order\":" + executions.next("seckill") + "}");
    }

    @Idempotent
    @PostMapping(path = "/orders/stream", produces = MediaType.TEXT_PLAIN_VALUE)
    public Flux<String> stream(@RequestBody String body) {
        return Flux.defer(() -> {
            executions.next("stream");
            return Flux.just("a", "b", "c").delayElements(Duration.ofMillis(5));
        });
    }
}
