package io.onlyonce.spring.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.memory.InMemoryWindowStore;
import io.onlyonce.spring.http.DedupRule;
import io.onlyonce.spring.http.DedupRules;
import io.onlyonce.spring.http.OnlyOnceProblems;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/**
 * The servlet filter computes the window fingerprint by the one recipe of core: for the request that
 * {@code WindowFingerprintTest} (onlyonce-core) and the gateway's {@code RequestFingerprintsTest}
 * (onlyonce-gateway) pin, the window it takes in the store is the pinned one, so the same rule means
 * the same request in a service without a gateway and behind one.
 */
class RequestDedupFilterFingerprintTest {

    /** The values of {@code WindowFingerprintTest}. */
    static final String PINNED_DEFAULT = "899c7b094d7770067035b685e8950d6744a728109ef806d70fb7584c6c62bb6f";
    static final String PINNED_NAMED = "9b44a31b85835e170771564a6772a1082243d5a67b723fd2f2b638f9d0d29030";
    static final String PINNED_FORM = "961963fde7eadf7e06de388e4399391266c9d78f097544e485d5a4dcb61b4d2f";

    static final Duration WINDOW = Duration.ofSeconds(5);

    final InMemoryWindowStore windows = new InMemoryWindowStore();

    /** Runs {@code request} through a filter with one rule of {@code fields}; how often it reached the handler. */
    int run(List<String> fields, MockHttpServletRequest request) throws Exception {
        RequestDedupFilter filter = new RequestDedupFilter(
                new DedupRules(List.of(new DedupRule("/api/orders/{id}", List.of("POST"), WINDOW, fields,
                        List.of("timestamp"), List.of("id")))),
                windows, r -> "alice", new OnlyOnceStatistics(List.of()), new OnlyOnceProblems("urn:test:"), 1024 * 1024);
        AtomicInteger handled = new AtomicInteger();
        filter.doFilter(request, new MockHttpServletResponse(), (req, res) -> handled.incrementAndGet());
        return handled.get();
    }

    static MockHttpServletRequest request(String contentType, String body) {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/api/orders/007");
        request.setQueryString("channel=app&timestamp=1700000000&b=x%20y");
        request.addHeader("X-Tenant", "t1");
        request.setRemoteAddr("203.0.113.7");
        request.setContentType(contentType);
        request.setContent(body.getBytes(StandardCharsets.UTF_8));
        return request;
    }

    /** Whether the window of {@code hex} was already taken (and takes it if not). */
    boolean taken(String hex) {
        return !windows.hit(Fingerprint.ofHex(hex), WINDOW).first();
    }

    @Test
    void theFilterTakesTheWindowFingerprintPinnedInCore() throws Exception {
        String json = "{\"item\":\"phone\",\"quantity\":1}";
        assertThat(run(List.of(), request("application/json", json))).isEqualTo(1);
        assertThat(taken(PINNED_DEFAULT)).isTrue();

        assertThat(run(List.of("principal", "var:id", "body:item", "header:x-tenant", "query:channel"),
                request("application/json", json))).isEqualTo(1);
        assertThat(taken(PINNED_NAMED)).isTrue();

        assertThat(run(List.of(), request("application/x-www-form-urlencoded", "item=fresh+milk&note=a&timestamp=1")))
                .isEqualTo(1);
        assertThat(taken(PINNED_FORM)).isTrue();
    }

    @Test
    void aReorderedJsonBodyIsADuplicateOfTheRequestThatTookTheWindow() throws Exception {
        assertThat(taken(PINNED_DEFAULT)).isFalse();
        assertThat(run(List.of(), request("application/json", "{ \"quantity\": 1, \"item\": \"phone\" }")))
                .as("refused: the window of the pinned fingerprint is taken").isZero();
    }
}
