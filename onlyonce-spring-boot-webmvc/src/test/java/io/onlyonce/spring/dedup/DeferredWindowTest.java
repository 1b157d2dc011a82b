package io.onlyonce.spring.dedup;

import io.onlyonce.spring.http.DedupRules;
import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.memory.InMemoryWindowStore;
import io.onlyonce.spring.http.DedupRule;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import io.onlyonce.spring.http.OnlyOnceProblems;
import io.onlyonce.spring.http.OnlyOnceRejection;
import io.onlyonce.spring.http.ProblemType;
import io.onlyonce.window.WindowHit;
import jakarta.servlet.FilterChain;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/**
 * A window the de-dup filter defers to the handler: the filter fingerprints the request as its rule
 * says and does not hit the window; the handler's repeat is counted as the filter's; a request the
 * handler opened the window for and then refused as invalid gives it back; requests of the rule that
 * are not deferred are checked by the filter as before.
 */
class DeferredWindowTest {

    final InMemoryWindowStore windows = new InMemoryWindowStore();
    final OnlyOnceStatistics statistics = new OnlyOnceStatistics(List.of());
    final RequestDedupFilter filter = new RequestDedupFilter(
            new DedupRules(List.of(new DedupRule("/api/buy/**", List.of("POST"), Duration.ofSeconds(5), List.of("principal"),
                    List.of()))),
            windows, request -> "alice", statistics, new OnlyOnceProblems("urn:test:"), 1024,
            request -> request.getRequestURI().endsWith("/orders"));

    static MockHttpServletRequest post(String path) {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", path);
        request.setContentType("application/json");
        request.setContent("{}".getBytes(StandardCharsets.UTF_8));
        return request;
    }

    /** Runs the filter with a handler that sees the deferred window (or none) and answers {@code status}. */
    DeferredWindow[] run(MockHttpServletRequest request, MockHttpServletResponse response, int status,
            java.util.function.Consumer<DeferredWindow> handler) throws Exception {
        DeferredWindow[] seen = new DeferredWindow[1];
        FilterChain chain = (req, res) -> {
            seen[0] = DeferredWindow.of((HttpServletRequest) req).orElse(null);
            if (seen[0] != null) {
                handler.accept(seen[0]);
            }
            ((HttpServletResponse) res).setStatus(status);
        };
        filter.doFilter(request, response, chain);
        return seen;
    }

    @Test
    void aDeferredWindowIsTheHandlersToCheck() throws Exception {
        AtomicReference<Fingerprint> fingerprint = new AtomicReference<>();
        DeferredWindow[] seen = run(post("/api/buy/1/orders"), new MockHttpServletResponse(), 202,
                w -> fingerprint.set(w.take()));
        assertThat(seen[0]).isNotNull();
        assertThat(seen[0].window()).isEqualTo(Duration.ofSeconds(5));
        // the filter did not open it: the handler's own first hit is the first
        assertThat(windows.hit(fingerprint.get(), Duration.ofSeconds(5)).first()).isTrue();

        // the same caller again: the same fingerprint, and the handler's repeat counts as the filter's
        AtomicReference<OnlyOnceRejection> refused = new AtomicReference<>();
        run(post("/api/buy/1/orders"), new MockHttpServletResponse(), 429, w -> {
            assertThat(w.take()).isEqualTo(fingerprint.get());
            refused.set(w.duplicate(windows.hit(w.take(), w.window())));
        });
        assertThat(refused.get().problemType()).isEqualTo(ProblemType.DUPLICATE_REQUEST);
        assertThat(refused.get().retryAfter()).isEqualTo(Duration.ofSeconds(5));
        assertThat(statistics.count("gateway", "window_duplicate")).isEqualTo(1);
    }

    @Test
    void aRequestRefusedAfterItOpenedTheWindowGivesItBack() throws Exception {
        AtomicReference<Fingerprint> fingerprint = new AtomicReference<>();
        run(post("/api/buy/2/orders"), new MockHttpServletResponse(), 404, w -> {
            fingerprint.set(w.take());
            assertThat(windows.hit(w.take(), w.window()).first()).isTrue();
        });
        assertThat(statistics.count("gateway", "window_released")).isEqualTo(1);
        WindowHit again = windows.hit(fingerprint.get(), Duration.ofSeconds(5));
        assertThat(again.first()).isTrue();
    }

    @Test
    void aRepeatRefusedWith429KeepsTheWindowOfTheFirst() throws Exception {
        AtomicReference<Fingerprint> fingerprint = new AtomicReference<>();
        run(post("/api/buy/3/orders"), new MockHttpServletResponse(), 202, w -> {
            fingerprint.set(w.take());
            windows.hit(w.take(), w.window());
        });
        run(post("/api/buy/3/orders"), new MockHttpServletResponse(), 429,
                w -> w.duplicate(windows.hit(w.take(), w.window())));
        assertThat(statistics.count("gateway", "window_released")).isZero();
        assertThat(windows.hit(fingerprint.get(), Duration.ofSeconds(5)).first()).isFalse();
    }

    @Test
    void requestsThatAreNotDeferredAreCheckedByTheFilter() throws Exception {
        DeferredWindow[] first = run(post("/api/buy/tokens"), new MockHttpServletResponse(), 201, w -> { });
        assertThat(first[0]).isNull();
        MockHttpServletResponse second = new MockHttpServletResponse();
        run(post("/api/buy/tokens"), second, 201, w -> { });
        assertThat(second.getStatus()).isEqualTo(429);
        assertThat(second.getHeader("Retry-After")).isEqualTo("5");
    }

    @Test
    void aDeferredWindowNobodyTakesIsNotChecked() throws Exception {
        MockHttpServletResponse first = new MockHttpServletResponse();
        MockHttpServletResponse second = new MockHttpServletResponse();
        run(post("/api/buy/4/orders"), first, 202, w -> { });
        run(post("/api/buy/4/orders"), second, 202, w -> { });
        assertThat(first.getStatus()).isEqualTo(202);
        assertThat(second.getStatus()).isEqualTo(202);
        assertThat(statistics.count("gateway", "window_duplicate")).isZero();
    }
}
