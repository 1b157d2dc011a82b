package io.onlyonce.spring.reactive;

import io.onlyonce.Fingerprint;
import io.onlyonce.http.FormFields;
import io.onlyonce.http.RequestFingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import io.onlyonce.engine.AsyncAdmission;
import io.onlyonce.engine.AsyncExecution;
import io.onlyonce.engine.IdempotencyEngine;
import io.onlyonce.engine.Outcome;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.spring.Idempotent;
import io.onlyonce.store.AsyncIdempotencyStore;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenService;
import io.onlyonce.spring.method.MethodSettings;
import io.onlyonce.spring.method.ObservedDurations;
import io.onlyonce.spring.metrics.OutcomeRecorder;
import io.onlyonce.spring.http.AtomicAnswers;
import io.onlyonce.spring.http.IdempotentRequests;
import io.onlyonce.spring.http.OnlyOnceProblems;
import io.onlyonce.spring.http.OnlyOnceRejection;
import io.onlyonce.spring.http.ProblemType;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.ArrayList;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The reactive adapter of the engine: turns an exchange into a key, a fingerprint and a stored
 * answer, and back, without blocking. Both entry points use it: {@link OnlyOnceWebFilter} for
 * annotated controllers, {@link OnlyOnceHandlerFilters} for functional routes.
 *
 * <p>Per request: the key comes from the key header (400 when missing or malformed), the scope
 * from the route template and the principal, the fingerprint from method, path, query, the whole
 * body (canonical when JSON, a form by its parameters, a multipart body by its parts) and the
 * configured headers, as on the servlet side ({@link RequestFingerprint}). Then
 * {@link IdempotencyEngine#admitAsync} decides: a replay is written byte for byte with
 * {@code Idempotent-Replayed: true}; a refusal is an RFC 9457 problem in the request's locale
 * (409 with {@code Retry-After}, 422, 503). An admitted request runs with its answer held back,
 * which is recorded and only then sent. The TOKEN strategy verifies and consumes the one-time token
 * first (see {@link #protect}), then runs the same way. Its pitfalls:
 * <ul>
 * <li>an empty {@code Mono} is an answer like any other (the status and an empty body): recorded,
 * and replayed to a retry;</li>
 * <li>an error signal releases the key (unless the method keeps it), so a retry runs;</li>
 * <li>a client that goes away (cancellation) before the handler began (while the key was being
 * claimed, or a later web filter or a slow step before the handler still held the request) had
 * nothing run: its key is released, so a retry runs at once, and a consumed token is given back
 * ({@link OnlyOnceHandlerStartFilter} marks where an annotated handler begins);</li>
 * <li>a client that goes away while the handler runs leaves the key to its lease: the work may have
 * run in part, so it is neither released nor completed without an answer;</li>
 * <li>a streamed answer ({@code Flux}) is passed through as written, and its key completed without
 * a response once it ended: a retry is told that the response was not kept.</li>
 * </ul>
 */
public final class ReactiveIdempotency {

    private static final Logger log = LoggerFactory.getLogger(ReactiveIdempotency.class);
    private static final Set<String> BODY_METHODS = Set.of("POST", "PUT", "PATCH", "DELETE");
    /** Bodies larger than this are fingerprinted by their digest only, as on the servlet side. */
    private static final int CANONICAL_JSON_LIMIT = RequestFingerprint.CANONICAL_JSON_LIMIT;
    private static final String REPLAYED_HEADER = "Idempotent-Replayed";

    private final IdempotencyEngine engine;
    private final AsyncIdempotencyStore store;
    private final TokenService tokens;
    private final String tokenHeader;
    private final ReactivePrincipalResolver principals;
    private final OutcomeRecorder recorder;
    private final ObservedDurations durations;
    private final OnlyOnceProblems problems;
    private final boolean principalRequired;
    private final String keyHeader;
    private final int maxRequestBody;
    private final KeptBody kept;

    /**
     * @param engine the engine, with an {@link IdempotencyEngine.Builder#async asynchronous store}
     * @param store that asynchronous store, where a token request's result is looked up for its duplicates
     * @param tokens the one-time tokens of the TOKEN strategy (their store calls run on the bounded elastic scheduler)
     * @param tokenHeader the name of the token header
     * @param principalRequired whether an anonymous request is refused (400 {@code principal-required})
     * @param keyHeader the name of the key header
     * @param maxRequestBody the largest request body fingerprinted (larger: 413)
     */
    public ReactiveIdempotency(IdempotencyEngine engine, AsyncIdempotencyStore store, TokenService tokens,
            String tokenHeader, ReactivePrincipalResolver principals, OutcomeRecorder recorder,
            ObservedDurations durations, OnlyOnceProblems problems, boolean principalRequired, String keyHeader,
            long maxRequestBody) {
        this(engine, store, tokens, tokenHeader, principals, recorder, durations, problems, principalRequired, keyHeader,
                maxRequestBody, ServerCodecConfigurer.create());
    }

    /**
     * @param codecs the application's codecs: its multipart reader serves a multipart body, kept
     *     for the fingerprint, to the handler ({@code getMultipartData()}, {@code @RequestPart})
     */
    public ReactiveIdempotency(IdempotencyEngine engine, AsyncIdempotencyStore store, TokenService tokens,
            String tokenHeader, ReactivePrincipalResolver principals, OutcomeRecorder recorder,
            ObservedDurations durations, OnlyOnceProblems problems, boolean principalRequired, String keyHeader,
            long maxRequestBody, ServerCodecConfigurer codecs) {
        this.engine = engine;
        this.store = store;
        this.tokens = tokens;
        this.tokenHeader = tokenHeader;
        this.principals = principals;
        this.recorder = recorder;
        this.durations = durations;
        this.problems = problems;
        this.principalRequired = principalRequired;
        this.keyHeader = keyHeader;
        this.maxRequestBody = (int) Math.min(Integer.MAX_VALUE, maxRequestBody);
        this.kept = new KeptBody(codecs, this.maxRequestBody);
    }

    /**
     * Runs {@code proceed} at most once for the request's key, or answers without running it.
     *
     * @param endpoint {@code METHOD route-template}, the metrics tag and part of the scope
     * @param streamed whether the answer is streamed over time ({@code Flux}): passed through, not stored
     * @param proceed runs the handler on the exchange it is given (whose body can be read again) and
     *     writes its answer
     */
    public Mono<Void> protect(ServerWebExchange exchange, MethodSettings method, String endpoint, boolean streamed,
            Function<ServerWebExchange, Mono<Void>> proceed) {
        return protect(exchange, method, endpoint, streamed, false, proceed);
    }

    /**
     * Protects a handler method that decides its request itself ({@link ReactiveAtomicIdempotency}):
     * verifies the key or token and resolves the record's key and fingerprint as {@link #protect}
     * does, then claims, consumes and records nothing; answers the refusal the handler's argument
     * decided, or else the handler's answer.
     */
    Mono<Void> protectSelfDecided(ServerWebExchange exchange, MethodSettings method, String endpoint,
            Function<ServerWebExchange, Mono<Void>> proceed) {
        return protect(exchange, method, endpoint, false, true, proceed);
    }

    private Mono<Void> protect(ServerWebExchange exchange, MethodSettings method, String endpoint, boolean streamed,
            boolean selfDecided, Function<ServerWebExchange, Mono<Void>> proceed) {
        if (method.annotation().strategy() == Idempotent.Strategy.TOKEN) {
            return protectByToken(exchange, method, endpoint, streamed, selfDecided, proceed);
        }
        String name;
        try {
            name = IdempotentRequests.headerKey(HeaderValues.of(exchange.getRequest().getHeaders(), keyHeader),
                    method.annotation().required());
        } catch (OnlyOnceRejection refused) {
            recorder.record(OutcomeRecorder.LAYER_BUSINESS, "missing_key", endpoint);
            return problem(exchange, refused);
        }
        if (name == null) {
            if (selfDecided) {
                // the one store call needs a key: an optional one is required here
                recorder.record(OutcomeRecorder.LAYER_BUSINESS, "missing_key", endpoint);
                return problem(exchange, OnlyOnceRejection.problem(ProblemType.IDEMPOTENCY_KEY_MISSING));
            }
            return proceed.apply(exchange);
        }
        return body(exchange.getRequest()).flatMap(body -> principals.resolve(exchange).map(Optional::of)
                .defaultIfEmpty(Optional.empty())
                .flatMap(principal -> {
                    if (principal.isEmpty() && principalRequired) {
                        recorder.record(OutcomeRecorder.LAYER_BUSINESS, "missing_key", endpoint);
                        return problem(exchange, OnlyOnceRejection.problem(ProblemType.PRINCIPAL_REQUIRED));
                    }
                    if (body.tooLarge()) {
                        return problem(exchange, OnlyOnceRejection.problem(ProblemType.REQUEST_TOO_LARGE));
                    }
                    IdempotencyKey key;
                    try {
                        key = IdempotentRequests.key(IdempotentRequests.scope(endpoint, principal.orElse(null)), name);
                    } catch (OnlyOnceRejection refused) {
                        recorder.record(OutcomeRecorder.LAYER_BUSINESS, "missing_key", endpoint);
                        return problem(exchange, refused);
                    }
                    return fingerprint(exchange.getRequest(), body.bytes(), method).flatMap(fingerprint -> {
                        KeptBody.Exchange served = kept.exchange(exchange, body.bytes());
                        if (selfDecided) {
                            return selfDecided(served.exchange(),
                                    new SelfDecidedRequest(endpoint, key, fingerprint, null, method.config()), proceed)
                                    .doFinally(signal -> served.cleanup().subscribe());
                        }
                        HandlerStart start = new HandlerStart(endpoint, null);
                        start.attachTo(exchange);
                        return admit(key, fingerprint, method, start)
                                .flatMap(admission -> admission instanceof AsyncAdmission.Admitted admitted
                                        ? run(served.exchange(), admitted.execution(), method, endpoint, streamed, proceed,
                                                null, start)
                                        : answer(exchange, ((AsyncAdmission.Decided) admission).outcome(), endpoint))
                                .doOnCancel(start::cancelled)
                                .doFinally(signal -> served.cleanup().subscribe());
                    });
                }));
    }

    /**
     * The TOKEN strategy: verifies the token (400 missing or forged, 403 bound to another principal
     * or scope) without a store call, consumes it (409 {@code duplicate-submission}, with the first
     * result when it is kept), then runs the handler with its answer kept under the token, for its
     * duplicates. A token is given back when the handler will not run (503), and on failure when the
     * method says {@code onFailure = RETRYABLE}.
     */
    private Mono<Void> protectByToken(ServerWebExchange exchange, MethodSettings method, String endpoint, boolean streamed,
            boolean selfDecided, Function<ServerWebExchange, Mono<Void>> proceed) {
        return principals.resolve(exchange).map(Optional::of).defaultIfEmpty(Optional.empty()).flatMap(principal -> {
            OneTimeToken token;
            IdempotencyKey resultKey;
            try {
                if (principal.isEmpty() && principalRequired) {
                    throw OnlyOnceRejection.problem(ProblemType.PRINCIPAL_REQUIRED);
                }
                Map<?, ?> variables = exchange.getAttributeOrDefault(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE, Map.of());
                token = IdempotentRequests.verifiedToken(tokens, HeaderValues.of(exchange.getRequest().getHeaders(), tokenHeader),
                        principal.orElse(null), IdempotentRequests.tokenScope(method.annotation().scope(), variables));
                resultKey = IdempotentRequests.tokenResultKey(IdempotentRequests.scope(endpoint, principal.orElse(null)), token);
            } catch (OnlyOnceRejection refused) {
                recorder.record(OutcomeRecorder.LAYER_BUSINESS, refused.problemType() == ProblemType.IDEMPOTENCY_TOKEN_INVALID
                        || refused.problemType() == ProblemType.IDEMPOTENCY_TOKEN_MISMATCH ? "token_rejected" : "missing_key",
                        endpoint);
                return problem(exchange, refused);
            }
            Fingerprint fingerprint = Fingerprint.of(exchange.getRequest().getMethod().name(),
                    exchange.getRequest().getURI().getRawPath());
            if (selfDecided) {
                return selfDecided(exchange, new SelfDecidedRequest(endpoint, resultKey, fingerprint, token, method.config()),
                        proceed);
            }
            Runnable giveBack = () -> IdempotentRequests.restoreQuietly(tokens, token);
            return blocking(() -> IdempotentRequests.consume(tokens, token, method.config(),
                            () -> recorder.record(OutcomeRecorder.LAYER_BUSINESS, "store_error", endpoint)))
                    .flatMap(consumed -> {
                        if (!consumed) {
                            return Mono.fromCompletionStage(() -> store.findAsync(resultKey))
                                    .onErrorReturn(StoreUnavailableException.class, java.util.Optional.empty())
                                    .flatMap(first -> {
                                        OnlyOnceRejection refused = IdempotentRequests.refusedToken(tokens, token, first);
                                        recorder.record(OutcomeRecorder.LAYER_BUSINESS,
                                                IdempotentRequests.refusedTokenMetric(refused), endpoint);
                                        return problem(exchange, refused);
                                    });
                        }
                        Runnable onReleased = method.annotation().onFailure() == Idempotent.FailureMode.RETRYABLE ? giveBack : null;
                        // cancelled before the handler began: nothing ran, so the token is given back too
                        HandlerStart start = new HandlerStart(endpoint, () -> Schedulers.boundedElastic().schedule(giveBack));
                        start.attachTo(exchange);
                        return admit(resultKey, fingerprint, method, start)
                                .flatMap(admission -> admission instanceof AsyncAdmission.Admitted admitted
                                        ? run(exchange, admitted.execution(), method, endpoint, streamed, proceed, onReleased,
                                                start)
                                        // consumed, but the handler will not run (503): give it back, so the
                                        // retry the 503 asks for is not told "duplicate submission"
                                        : blocking(() -> { giveBack.run(); return Boolean.TRUE; })
                                                .then(answer(exchange, ((AsyncAdmission.Decided) admission).outcome(), endpoint)))
                                .doOnCancel(start::cancelled);
                    })
                    .onErrorResume(OnlyOnceRejection.class, refused -> problem(exchange, refused));
        });
    }

    /**
     * Runs a self-deciding handler with its answer held back: sends it, or, when the handler's
     * argument decided a refusal, answers that instead (whatever the handler or an exception
     * handler made of it), as {@link #answer} answers the two-step path's outcomes.
     */
    private Mono<Void> selfDecided(ServerWebExchange exchange, SelfDecidedRequest request,
            Function<ServerWebExchange, Mono<Void>> proceed) {
        request.attachTo(exchange);
        RecordingResponse recording = new RecordingResponse(exchange.getResponse());
        return proceed.apply(exchange.mutate().response(recording).build())
                .then(Mono.just(Boolean.TRUE))
                .onErrorResume(failure -> request.refusal() != null ? Mono.just(Boolean.TRUE) : Mono.error(failure))
                .flatMap(ran -> {
                    AtomicAnswers.Refusal refusal = request.refusal();
                    if (refusal == null) {
                        return recording.send();
                    }
                    if (refusal instanceof AtomicAnswers.Refused refused) {
                        recorder.record(OutcomeRecorder.LAYER_BUSINESS, refused.metric(), request.endpoint());
                        return problem(exchange, refused.rejection());
                    }
                    return answer(exchange, ((AtomicAnswers.Decided) refusal).outcome(), request.endpoint());
                });
    }

    /** A blocking call (a token store's), on the bounded elastic scheduler. */
    static <T> Mono<T> blocking(java.util.concurrent.Callable<T> call) {
        return Mono.fromCallable(call).subscribeOn(Schedulers.boundedElastic());
    }

    /** The request body, read whole (null bytes for a method without one); one larger than the limit is not kept. */
    private Mono<Body> body(ServerHttpRequest request) {
        if (!BODY_METHODS.contains(request.getMethod().name())) {
            return Mono.just(new Body(null, false));
        }
        return DataBufferUtils.join(request.getBody(), maxRequestBody)
                .map(buffer -> {
                    byte[] bytes = new byte[buffer.readableByteCount()];
                    buffer.read(bytes);
                    DataBufferUtils.release(buffer);
                    return new Body(bytes, false);
                })
                .defaultIfEmpty(new Body(new byte[0], false))
                .onErrorResume(DataBufferLimitException.class, tooLarge -> Mono.just(new Body(null, true)));
    }

    /**
     * A request body.
     *
     * @param bytes null when the method has none
     * @param tooLarge whether it is larger than can be fingerprinted (413)
     */
    private record Body(byte @Nullable [] bytes, boolean tooLarge) {
    }

    /**
     * SHA-256 over method, path and query as sent, the whole body (canonical when JSON, a form by its
     * parameters as Spring MVC takes it, a multipart body by its parts as Spring MVC takes them: one
     * that is not well-formed by its bytes, and its handler decides) and the chosen headers.
     */
    private Mono<Fingerprint> fingerprint(ServerHttpRequest request, byte @Nullable [] body, MethodSettings method) {
        if (body != null && KeptBody.isMultipart(request)) {
            return kept.parts(request, body)
                    .<RequestFingerprint.Body>map(RequestFingerprint.Body.Multipart::new)
                    .onErrorResume(notMultipart -> Mono.just(new RequestFingerprint.Body.Opaque(sha256(body))))
                    .map(taken -> fingerprint(request, taken, method));
        }
        return Mono.just(fingerprint(request, taken(request, body), method));
    }

    /** The body as the fingerprint takes it, for any body but a multipart one. */
    private static RequestFingerprint.Body taken(ServerHttpRequest request, byte @Nullable [] body) {
        if (body == null) {
            return RequestFingerprint.Body.NONE;
        }
        MediaType type = request.getHeaders().getContentType();
        if (type != null && MediaType.APPLICATION_FORM_URLENCODED.includes(type)) {
            return form(request.getURI().getRawQuery(), body, type);
        }
        return type != null && body.length <= CANONICAL_JSON_LIMIT
                && (type.isCompatibleWith(MediaType.APPLICATION_JSON) || type.getSubtype().endsWith("+json"))
                ? new RequestFingerprint.Body.Json(body)
                : new RequestFingerprint.Body.Opaque(sha256(body));
    }

    private static Fingerprint fingerprint(ServerHttpRequest request, RequestFingerprint.Body taken, MethodSettings method) {
        List<RequestFingerprint.Header> headers = new ArrayList<>();
        for (String header : method.fingerprintHeaders()) {
            headers.add(new RequestFingerprint.Header(header, HeaderValues.of(request.getHeaders(), header)));
        }
        return RequestFingerprint.of(request.getMethod().name(), request.getURI().getRawPath(), request.getURI().getRawQuery(),
                taken, headers);
    }

    /**
     * A form as Spring MVC takes it: by its parameters, the query string's (decoded as UTF-8) and the
     * body's (decoded with the charset of its type, UTF-8 when it names none), a name's query values
     * before its body values.
     */
    private static RequestFingerprint.Body form(@Nullable String rawQuery, byte[] body, MediaType type) {
        Charset charset = type.getCharset() != null ? type.getCharset() : StandardCharsets.UTF_8;
        Map<String, List<String>> parameters = new LinkedHashMap<>();
        FormFields.parse(rawQuery, StandardCharsets.UTF_8).forEach((name, values) -> parameters.put(name, new ArrayList<>(values)));
        FormFields.parse(new String(body, charset), charset)
                .forEach((name, values) -> parameters.computeIfAbsent(name, n -> new ArrayList<>()).addAll(values));
        return RequestFingerprint.Body.Form.of(parameters);
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Claims the key. The claim's answer is not dropped when the request is cancelled meanwhile:
     * {@code start} then releases the key it claimed.
     */
    private Mono<AsyncAdmission> admit(IdempotencyKey key, Fingerprint fingerprint, MethodSettings method, HandlerStart start) {
        return Mono.defer(() -> {
            CompletableFuture<AsyncAdmission> admitting = AsyncIdempotencyStore
                    .stage(() -> engine.admitAsync(key, fingerprint, method.config())).toCompletableFuture();
            admitting.thenAccept(admission -> {
                if (admission instanceof AsyncAdmission.Admitted admitted) {
                    start.admitted(admitted.execution());
                }
            });
            return Mono.fromFuture(admitting, true);
        });
    }

    /**
     * Runs the admitted handler, then records its answer and sends it; see the class comment for its
     * pitfalls. A request cancelled before its handler began is {@code start}'s to release, and ends
     * here without recording or sending anything.
     */
    private Mono<Void> run(ServerWebExchange exchange, AsyncExecution execution, MethodSettings method, String endpoint,
            boolean streamed, Function<ServerWebExchange, Mono<Void>> proceed, @Nullable Runnable onReleased,
            HandlerStart start) {
        if (!execution.isProtected()) {
            recorder.record(OutcomeRecorder.LAYER_BUSINESS, "store_error", endpoint);
        }
        recorder.record(OutcomeRecorder.LAYER_BUSINESS, "executed", endpoint);
        long began = System.nanoTime();
        if (streamed) {
            return proceed.apply(exchange)
                    .then(Mono.just(Boolean.TRUE))
                    .onErrorResume(failure -> start.finishing() ? failed(execution, failure, onReleased) : Mono.empty())
                    .filter(ran -> start.finishing())
                    .flatMap(ran -> Mono.fromCompletionStage(() -> execution.completeWithoutResponse(status(exchange.getResponse()))))
                    .flatMap(executed -> released(executed, onReleased))
                    .then();
        }
        RecordingResponse recording = new RecordingResponse(exchange.getResponse());
        return proceed.apply(exchange.mutate().response(recording).build())
                .then(Mono.just(Boolean.TRUE))
                .onErrorResume(failure -> start.finishing() ? failed(execution, failure, onReleased) : Mono.empty())
                .filter(ran -> start.finishing())
                .flatMap(ran -> {
                    durations.record(endpoint, Duration.ofNanos(System.nanoTime() - began));
                    return Mono.fromCompletionStage(() -> record(execution, method, recording));
                })
                .flatMap(executed -> released(executed, onReleased))
                .then(Mono.defer(() -> start.abandoned() ? Mono.<Void>empty() : recording.send()));
    }

    /**
     * Frees the key of a handler that failed (unless the method keeps it), runs {@code onReleased},
     * then passes the failure on.
     */
    private static Mono<Boolean> failed(AsyncExecution execution, Throwable failure, @Nullable Runnable onReleased) {
        Mono<Void> freed = Mono.fromCompletionStage(() -> execution.fail(failure));
        if (onReleased != null) {
            freed = freed.then(blocking(() -> { onReleased.run(); return Boolean.TRUE; })).then();
        }
        return freed.then(Mono.error(failure));
    }

    /** Runs {@code onReleased} when the answer was a failure's (5xx) and its key was released. */
    private static Mono<Outcome.Executed> released(Outcome.Executed executed, @Nullable Runnable onReleased) {
        if (onReleased == null || executed.recording() != Outcome.Recording.RELEASED) {
            return Mono.just(executed);
        }
        return blocking(() -> { onReleased.run(); return executed; });
    }

    /**
     * Records the held-back answer. A success whose response cannot be stored (larger than the
     * limit, a header no store may keep) is completed without its response: the work ran, so its
     * key stays taken and retries are told so.
     */
    private static java.util.concurrent.CompletionStage<Outcome.Executed> record(AsyncExecution execution,
            MethodSettings method, RecordingResponse recording) {
        int status = recording.status();
        byte[] body = recording.body();
        if (body.length > method.maxBodySize()) {
            log.warn("a {} byte response is larger than onlyonce.key.max-body-size ({} bytes): its key is kept"
                    + " without the response", body.length, method.maxBodySize());
            return execution.completeWithoutResponse(status);
        }
        StoredResponse stored;
        try {
            stored = new StoredResponse(status, recording.replayHeaders(method.replayHeaders()), body);
        } catch (IllegalArgumentException notStorable) {
            log.warn("a response cannot be stored ({}): its key is kept without the response", notStorable.getMessage());
            return execution.completeWithoutResponse(status);
        }
        return execution.complete(stored);
    }

    private static int status(ServerHttpResponse response) {
        HttpStatusCode status = response.getStatusCode();
        return status == null ? 200 : status.value();
    }

    /** Answers an outcome that lets nothing run: the replay, or the refusal's problem. */
    private Mono<Void> answer(ServerWebExchange exchange, Outcome outcome, String endpoint) {
        if (outcome instanceof Outcome.Replayed replayed) {
            if (!IdempotentRequests.acceptable(HeaderValues.of(exchange.getRequest().getHeaders(), HttpHeaders.ACCEPT),
                    replayed.response())) {
                recorder.record(OutcomeRecorder.LAYER_BUSINESS, "not_acceptable", endpoint);
                return problem(exchange, OnlyOnceRejection.problem(ProblemType.REPLAY_NOT_ACCEPTABLE));
            }
            recorder.record(OutcomeRecorder.LAYER_BUSINESS, "replayed", endpoint);
            return replay(exchange.getResponse(), replayed.response());
        }
        recorder.record(OutcomeRecorder.LAYER_BUSINESS, IdempotentRequests.metricName(outcome), endpoint);
        return problem(exchange, IdempotentRequests.refusal(outcome, outcome instanceof Outcome.InProgress inProgress
                ? durations.retryAfter(endpoint, inProgress)
                : Duration.ZERO));
    }

    /** Writes a stored response as it was first sent, plus {@code Idempotent-Replayed: true}. */
    private static Mono<Void> replay(ServerHttpResponse response, StoredResponse replay) {
        response.setStatusCode(HttpStatusCode.valueOf(replay.status()));
        HttpHeaders headers = response.getHeaders();
        headers.setContentType(null); // removes it; remove(String) is Spring Framework 7's only
        Set<String> written = new HashSet<>();
        for (StoredResponse.Header header : replay.headers()) {
            if (written.add(header.name().toLowerCase(Locale.ROOT))) {
                headers.set(header.name(), header.value());
            } else {
                headers.add(header.name(), header.value());
            }
        }
        headers.set(REPLAYED_HEADER, "true");
        byte[] body = replay.body();
        headers.setContentLength(body.length);
        return body.length == 0
                ? response.setComplete()
                : response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(body)));
    }

    /** Answers the refusal's problem in the request's locale (as the servlet side: the server's default without Accept-Language). */
    private Mono<Void> problem(ServerWebExchange exchange, OnlyOnceRejection rejection) {
        byte[] bytes = problemBody(exchange.getRequest(), rejection);
        ServerHttpResponse response = exchange.getResponse();
        response.setStatusCode(HttpStatusCode.valueOf(Objects.requireNonNull(rejection.problemType()).status().value()));
        HttpHeaders headers = response.getHeaders();
        headers.setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        headers.setContentLength(bytes.length);
        Duration retryAfter = rejection.retryAfter();
        if (retryAfter != null) {
            headers.set(HttpHeaders.RETRY_AFTER, Long.toString(IdempotentRequests.retryAfterSeconds(retryAfter)));
        }
        return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(bytes)));
    }

    /** The refusal's problem as the answer of a handler function (the token endpoint's). */
    Mono<ServerResponse> problemResponse(ServerRequest request, OnlyOnceRejection rejection) {
        ServerResponse.BodyBuilder builder = ServerResponse
                .status(Objects.requireNonNull(rejection.problemType()).status())
                .contentType(MediaType.APPLICATION_PROBLEM_JSON);
        Duration retryAfter = rejection.retryAfter();
        if (retryAfter != null) {
            builder.header(HttpHeaders.RETRY_AFTER, Long.toString(IdempotentRequests.retryAfterSeconds(retryAfter)));
        }
        return builder.bodyValue(problemBody(request.exchange().getRequest(), rejection));
    }

    private byte[] problemBody(ServerHttpRequest request, OnlyOnceRejection rejection) {
        ProblemType type = Objects.requireNonNull(rejection.problemType());
        List<Locale> accepted = request.getHeaders().getAcceptLanguageAsLocales();
        Locale locale = accepted.isEmpty() ? Locale.getDefault() : OnlyOnceProblems.language(accepted);
        ProblemDetail problem = problems.create(type, locale);
        Map<String, Object> members = new LinkedHashMap<>();
        members.put("type", String.valueOf(problem.getType()));
        members.put("title", problem.getTitle());
        members.put("status", problem.getStatus());
        members.put("detail", problem.getDetail());
        members.put("instance", request.getURI().getRawPath());
        members.putAll(rejection.properties());
        return io.onlyonce.json.Json.onClassPath().write(members);
    }
}
