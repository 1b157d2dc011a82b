package io.onlyonce.spring.method;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Streamed answers are found through any depth of super-interfaces: Mono is a Publisher through CorePublisher. */
class StreamingTest {

    @Test
    void reactorTypesArePublishersThroughCorePublisher() {
        assertThat(Streaming.streamingType(Mono.class)).isEqualTo("Publisher");
        assertThat(Streaming.streamingType(Flux.class)).isEqualTo("Publisher");
        assertThat(Streaming.isStreaming(Mono.just("a").getClass())).isTrue();
        assertThat(Streaming.isStreaming(Flux.just("a", "b").getClass())).isTrue();
    }

    @Test
    void singleAsynchronousAnswersAreNotStreamed() {
        assertThat(Streaming.isStreaming(CompletableFuture.class)).isFalse();
        assertThat(Streaming.isStreaming(List.class)).isFalse();
        assertThat(Streaming.isStreaming(String.class)).isFalse();
    }

    @RestController
    static class MvcController {
        @io.onlyonce.spring.Idempotent
        @PostMapping("/mono")
        public Mono<String> mono() {
            return Mono.just("a");
        }
    }

    @Test
    void aSpringMvcHandlerReturningMonoFailsStartUpAsTheDocsSay() throws Exception {
        List<String> problems = IdempotentMethodValidator.check(MvcController.class,
                MvcController.class.getMethod("mono"));
        assertThat(problems).containsExactly("MvcController.mono streams its answer (Publisher), which is written over"
                + " time and cannot be stored for replay");
        assertThat(IdempotentMethodValidator.check(MvcController.class, MvcController.class.getMethod("mono"), true))
                .as("a WebFlux handler's Mono is recorded").isEmpty();
    }
}
