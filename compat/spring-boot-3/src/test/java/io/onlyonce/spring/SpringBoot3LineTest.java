package io.onlyonce.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.json.Json;
import io.onlyonce.spring.testapp.TestApplication;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.SpringVersion;
import org.springframework.util.ClassUtils;

/**
 * What only this build checks: that it really is a Spring Boot 3.5 application with Jackson 2 and
 * no Jackson 3 (so the suite beside it proves the Boot 3 line), and the springdoc 2.8 integration.
 */
@SpringBootTest(classes = TestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "onlyonce.store=memory")
class SpringBoot3LineTest {

    @LocalServerPort
    int port;

    @Test
    void thisIsSpringBoot35WithJackson2Only() {
        assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");
        assertThat(SpringVersion.getVersion()).startsWith("6.2.");
        assertThat(Json.onClassPath().library()).startsWith("Jackson 2.");
        assertThat(ClassUtils.isPresent("tools.jackson.databind.ObjectMapper", getClass().getClassLoader()))
                .as("no Jackson 3 on a Boot 3 class path").isFalse();
        assertThat(ClassUtils.isPresent("org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration",
                getClass().getClassLoader())).as("no Spring Boot 4 module beside Boot 3.5").isFalse();
        // the Kafka tests beside it run on Boot 3.5's Kafka support: Spring Kafka 3.3, client 3.9
        assertThat(org.springframework.kafka.core.KafkaTemplate.class.getPackage().getImplementationVersion())
                .startsWith("3.3.");
        assertThat(org.apache.kafka.common.utils.AppInfoParser.getVersion()).startsWith("3.9.");
        assertThat(ClassUtils.isPresent("org.springframework.boot.kafka.autoconfigure.KafkaProperties",
                getClass().getClassLoader())).as("no Spring Boot 4 Kafka module").isFalse();
    }

    @Test
    void springdocDocumentsTheKeyHeaderOfIdempotentOperations() {
        Http http = new Http(port);
        HttpResponse<String> docs = http.send(http.get("/v3/api-docs").header("Authorization", "Basic "
                + java.util.Base64.getEncoder().encodeToString("alice:alice-pw".getBytes(java.nio.charset.StandardCharsets.UTF_8))));

        assertThat(docs.statusCode()).isEqualTo(200);
        JsonDoc orders = JsonDoc.parse(docs.body()).get("paths").get("/orders").get("post");
        assertThat(orders.get("parameters").toString()).contains("\"name\":\"Idempotency-Key\"").contains("\"in\":\"header\"");
    }

    @Test
    void aReplayIsByteExactWithTheReplayedHeader() {
        Http http = new Http(port);
        String key = UUID.randomUUID().toString();
        String order = "{\"item\":\"phone\",\"quantity\":1,\"businessId\":\"b-" + key + "\"}";
        HttpResponse<String> first = http.send(http.post("/orders", "alice", order).header("Idempotency-Key", key));
        HttpResponse<String> again = http.send(http.post("/orders", "alice", order).header("Idempotency-Key", key));

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(again.statusCode()).isEqualTo(201);
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    }
}
