package io.onlyonce.spring.reactive.app;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.memory.InMemoryIdempotencyStore;
import io.onlyonce.spring.reactive.OnlyOnceHandlerFilters;
import io.onlyonce.store.AsyncIdempotencyStore;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.testing.MutableClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;


/** A WebFlux application with annotated and functional idempotent endpoints, HTTP basic users alice and bob. */
@SpringBootApplication
public class ReactiveTestApplication {

    /** How often each endpoint's work ran. */
    public static final class Executions {
        private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

        public int next(String endpoint) {
            return counts.computeIfAbsent(endpoint, e -> new AtomicInteger()).incrementAndGet();
        }

        public int of(String endpoint) {
            AtomicInteger count = counts.get(endpoint);
            return count == null ? 0 : count.get();
        }

        public void reset() {
            counts.clear();
        }
    }

    @Bean
    Executions executions() {
        return new Executions();
    }

    /**
     * On {@code onlyonce.store=memory}: the store tests can take down, on a clock of its own that
     * stands still until a test moves it (not a {@code Clock} bean: the rest of the application keeps
     * the system clock).
     */
    @Bean
    @ConditionalOnProperty(name = "onlyonce.store", havingValue = "memory")
    SwitchableStore switchableStore() {
        return new SwitchableStore(MutableClock.startingNow());
    }

    @Bean
    HoldingFilter holdingFilter() {
        return new HoldingFilter();
    }

    /**
     * A web filter after OnlyOnce's (a slow step between the key's claim and the handler): holds
     * {@code /orders/held} until a test lets it through.
     */
    public static final class HoldingFilter implements WebFilter, Ordered {
        private final AtomicInteger holding = new AtomicInteger();
        private volatile Sinks.Empty<Void> gate = opened();

        private static Sinks.Empty<Void> opened() {
            Sinks.Empty<Void> open = Sinks.empty();
            open.tryEmitEmpty();
            return open;
        }

        /** How many requests it has held so far. */
        public int held() {
            return holding.get();
        }

        /** Holds the requests that come from now on. */
        public void close() {
            gate = Sinks.empty();
        }

        /** Lets the held requests and all later ones through. */
        public void open() {
            gate.tryEmitEmpty();
        }

        @Override
        public int getOrder() {
            return 0;
        }

        @Override
        public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
            if (!exchange.getRequest().getURI().getPath().equals("/orders/held")) {
                return chain.filter(exchange);
            }
            return Mono.defer(() -> {
                holding.incrementAndGet();
                return gate.asMono();
            }).then(Mono.defer(() -> chain.filter(exchange)));
        }
    }

    @Bean
    SecurityWebFilterChain security(ServerHttpSecurity http) {
        return http.csrf(ServerHttpSecurity.CsrfSpec::disable)
                .authorizeExchange(exchanges -> exchanges.anyExchange().authenticated())
                .httpBasic(basic -> { })
                .build();
    }

    @Bean
    MapReactiveUserDetailsService users() {
        return new MapReactiveUserDetailsService(
                User.withUsername("alice").password("{noop}alice-pw").roles("USER").build(),
                User.withUsername("bob").password("{noop}bob-pw").roles("USER").build());
    }

    @Bean
    RouterFunction<ServerResponse> routes(OnlyOnceHandlerFilters onlyOnce, Executions executions) {
        return RouterFunctions.route()
                .POST("/routes/orders", request -> request.bodyToMono(String.class).flatMap(body -> {
                    int run = executions.next("route");
                    return ServerResponse.status(201).header("Location", "/routes/orders/" + run)
                            .contentType(org.springframework.http.MediaType.APPLICATION_JSON)
                            .bodyValue("{\"run\":" + run + ",\"echo\":" + body + "}");
                }))
                .filter(onlyOnce.idempotent())
                .build();
    }

    /** The in-memory store (asynchronous itself), which a test can take down. */
    public static final class SwitchableStore implements IdempotencyStore, AsyncIdempotencyStore {
        private final MutableClock clock;
        private final InMemoryIdempotencyStore delegate;
        private final AtomicInteger asyncCalls = new AtomicInteger();
        private final List<CompletableFuture<Void>> heldClaims = new CopyOnWriteArrayList<>();
        private volatile boolean down;
        private volatile boolean holdClaims;

        SwitchableStore(MutableClock clock) {
            this.clock = clock;
            this.delegate = new InMemoryIdempotencyStore(clock, 1_000_000);
        }

        /** The store's clock, which only tests move. */
        public MutableClock clock() {
            return clock;
        }

        public void down(boolean down) {
            this.down = down;
        }

        /** Whether asynchronous claims wait, from now on, for {@link #answerClaims()} before they are made. */
        public void holdClaims(boolean hold) {
            this.holdClaims = hold;
        }

        /** How many asynchronous claims are waiting. */
        public int claimsHeld() {
            return (int) heldClaims.stream().filter(claim -> !claim.isDone()).count();
        }

        /** Lets the waiting claims be made and answered. */
        public void answerClaims() {
            heldClaims.forEach(claim -> claim.complete(null));
        }

        /** How many asynchronous calls reached this store. */
        public int asyncCalls() {
            return asyncCalls.get();
        }

        private <T> T call(String operation, Supplier<T> call) {
            if (down) {
                throw new StoreUnavailableException(operation, new IllegalStateException("down for the test"));
            }
            return call.get();
        }

        private <T> CompletionStage<T> callAsync(String operation, Supplier<CompletionStage<T>> call) {
            asyncCalls.incrementAndGet();
            return down
                    ? CompletableFuture.failedFuture(new StoreUnavailableException(operation, new IllegalStateException("down")))
                    : call.get();
        }

        @Override
        public ClaimResult claim(IdempotencyKey key, Fingerprint fingerprint, Duration lease) {
            return call("claim", () -> delegate.claim(key, fingerprint, lease));
        }

        @Override
        public boolean complete(IdempotencyKey key, OwnerToken owner, @Nullable StoredResponse response, Duration retention) {
            return call("complete", () -> delegate.complete(key, owner, response, retention));
        }

        @Override
        public boolean release(IdempotencyKey key, OwnerToken owner) {
            return call("release", () -> delegate.release(key, owner));
        }

        @Override
        public Optional<IdempotencyRecord> find(IdempotencyKey key) {
            return call("find", () -> delegate.find(key));
        }

        @Override
        public CompletionStage<ClaimResult> claimAsync(IdempotencyKey key, Fingerprint fingerprint, Duration lease) {
            if (holdClaims) {
                CompletableFuture<Void> held = new CompletableFuture<>();
                heldClaims.add(held);
                return held.thenCompose(answered -> callAsync("claim", () -> delegate.claimAsync(key, fingerprint, lease)));
            }
            return callAsync("claim", () -> delegate.claimAsync(key, fingerprint, lease));
        }

        @Override
        public CompletionStage<Boolean> completeAsync(IdempotencyKey key, OwnerToken owner,
                @Nullable StoredResponse response, Duration retention) {
            return callAsync("complete", () -> delegate.completeAsync(key, owner, response, retention));
        }

        @Override
        public CompletionStage<Boolean> releaseAsync(IdempotencyKey key, OwnerToken owner) {
            return callAsync("release", () -> delegate.releaseAsync(key, owner));
        }

        @Override
        public CompletionStage<Optional<IdempotencyRecord>> findAsync(IdempotencyKey key) {
            return callAsync("find", () -> delegate.findAsync(key));
        }
    }

}
