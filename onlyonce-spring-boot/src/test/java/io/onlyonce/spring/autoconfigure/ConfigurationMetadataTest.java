package io.onlyonce.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The configuration processor documents the {@code onlyonce.*} properties for IDEs. */
class ConfigurationMetadataTest {

    private static Map<String, JsonNode> properties() throws Exception {
        try (InputStream in = OnlyOnceProperties.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("target/classes/META-INF/spring-configuration-metadata.json").isNotNull();
            Map<String, JsonNode> byName = new HashMap<>();
            JsonMapper.builder().build().readTree(in).get("properties").forEach(p -> byName.put(p.get("name").asString(), p));
            return byName;
        }
    }

    @Test
    void keyRetentionIsDescribedWithItsDefault() throws Exception {
        JsonNode retention = properties().get("onlyonce.key.retention");
        assertThat(retention).isNotNull();
        assertThat(retention.get("type").asString()).isEqualTo("java.time.Duration");
        assertThat(retention.get("description").asString())
                .isEqualTo("How long a completed response is kept and replayed to retries with the same key. After it, the same key executes again.");
        assertThat(retention.get("defaultValue").asString()).isEqualTo("24h");
    }

    @Test
    void everyPropertyHasADescription() throws Exception {
        Map<String, JsonNode> properties = properties();
        assertThat(properties).containsKeys("onlyonce.store", "onlyonce.key.lease", "onlyonce.key.store-failure-policy",
                "onlyonce.token.ttl", "onlyonce.token.secrets", "onlyonce.dedup.enabled", "onlyonce.dedup.rules",
                "onlyonce.redis.key-prefix", "onlyonce.jdbc.initialize-schema");
        assertThat(properties.values()).allSatisfy(p -> assertThat(p.path("description").asString())
                .as(p.get("name").asString()).isNotBlank().matches("[A-Z].*\\.$"));
        assertThat(properties.get("onlyonce.key.max-body-size").get("description").asString())
                .as("documents both limits it sets").contains("request body").contains("response body");
        assertThat(properties.get("onlyonce.enabled").get("defaultValue").asBoolean()).isTrue();
        assertThat(properties.get("onlyonce.enabled").get("description").asString()).startsWith("Whether");
    }

    @Test
    void everyDescriptionIsPlainText() throws Exception {
        try (InputStream in = OnlyOnceProperties.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            JsonNode metadata = JsonMapper.builder().build().readTree(in);
            List<JsonNode> described = new ArrayList<>();
            for (String section : List.of("groups", "properties", "hints")) {
                metadata.path(section).forEach(entry -> {
                    described.add(entry);
                    entry.path("values").forEach(described::add);
                });
            }
            assertThat(described).hasSizeGreaterThan(50).allSatisfy(entry -> assertThat(entry.path("description").asString())
                    .as("%s", entry.has("name") ? entry.get("name") : entry.get("value"))
                    .doesNotContain("{@").doesNotContainPattern("</?[a-zA-Z][^>]*>").doesNotContainPattern("&[a-z]+;"));
            assertThat(properties().get("onlyonce.enabled").get("description").asString()).contains(" @Idempotent ");
        }
    }

    @Test
    void valueHintsNameTheChoices() throws Exception {
        try (InputStream in = OnlyOnceProperties.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            JsonNode hints = JsonMapper.builder().build().readTree(in).get("hints");
            Map<String, JsonNode> byName = new HashMap<>();
            hints.forEach(h -> byName.put(h.get("name").asString(), h));
            assertThat(byName).containsKeys("onlyonce.store", "onlyonce.key.store-failure-policy",
                    "onlyonce.jdbc.initialize-schema", "onlyonce.dedup.rules.fields", "onlyonce.key.replay-excluded-headers");
            java.util.List<String> stores = new java.util.ArrayList<>();
            byName.get("onlyonce.store").get("values").forEach(v -> stores.add(v.get("value").asString()));
            assertThat(stores).containsExactly("memory", "redis", "jdbc");
            byName.get("onlyonce.store").get("values").forEach(v -> assertThat(v.path("description").asString()).isNotBlank());
        }
    }
}
