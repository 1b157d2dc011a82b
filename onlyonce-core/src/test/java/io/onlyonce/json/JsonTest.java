package io.onlyonce.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class JsonTest {

    static Stream<Json> both() {
        return Stream.of(new Jackson3Json(), new Jackson2Json());
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @MethodSource("both")
    @SuppressWarnings("unchecked")
    void readsPlainValuesWithJacksonsUsualNumbers(Json json) throws Exception {
        Object read = json.read(utf8("{\"n\":7,\"big\":123456789012345678901234567890,\"f\":1.50,\"s\":\"订单\",\"a\":[true,null]}"));

        assertThat(read).isInstanceOf(Map.class);
        Map<?, ?> map = (Map<?, ?>) read;
        assertThat(new java.util.ArrayList<Object>(map.keySet())).containsExactly("n", "big", "f", "s", "a");
        assertThat(map.get("n")).isEqualTo(7);
        assertThat(map.get("big")).isEqualTo(new BigInteger("123456789012345678901234567890"));
        assertThat(map.get("f")).isEqualTo(1.5d);
        assertThat(map.get("s")).isEqualTo("订单");
        assertThat((List<Object>) map.get("a")).containsExactly(true, null);
        assertThat(json.read(utf8("{\"k\":1,\"k\":2}"))).isEqualTo(Map.of("k", 2));
    }

    @ParameterizedTest
    @MethodSource("both")
    void readsNumbersExactlyAndRefusesRepeatedKeys(Json json) throws Exception {
        Map<?, ?> map = (Map<?, ?>) json.readExact(utf8("{\"price\":1999.00,\"qty\":2}"));

        assertThat(map.get("price")).isEqualTo(new BigDecimal("1999.00"));
        assertThat(map.get("qty")).isEqualTo(BigInteger.TWO);
        assertThatThrownBy(() -> json.readExact(utf8("{\"k\":1,\"k\":2}"))).isInstanceOf(NotJsonException.class);
    }

    @ParameterizedTest
    @MethodSource("both")
    void refusesWhatIsNotOneDocument(Json json) {
        for (String bad : List.of("", "{", "{} {}", "[1] x", "{'a':1}", "not json")) {
            assertThatThrownBy(() -> json.read(utf8(bad))).as(bad).isInstanceOf(NotJsonException.class);
            assertThatThrownBy(() -> json.readExact(utf8(bad))).as(bad).isInstanceOf(NotJsonException.class);
        }
    }

    @ParameterizedTest
    @MethodSource("both")
    void writesInTheMapsOrderOrSortedAtEveryLevel(Json json) {
        Map<String, Object> inner = new LinkedHashMap<>();
        inner.put("z", 1);
        inner.put("a", new BigDecimal("2.50"));
        Map<String, Object> outer = new LinkedHashMap<>();
        outer.put("title", "重复请求 \"quoted\"");
        outer.put("inner", inner);
        outer.put("list", List.of(inner));

        assertThat(text(json.write(outer)))
                .isEqualTo("{\"title\":\"重复请求 \\\"quoted\\\"\",\"inner\":{\"z\":1,\"a\":2.50},\"list\":[{\"z\":1,\"a\":2.50}]}");
        assertThat(text(json.writeSorted(outer)))
                .isEqualTo("{\"inner\":{\"a\":2.50,\"z\":1},\"list\":[{\"a\":2.50,\"z\":1}],\"title\":\"重复请求 \\\"quoted\\\"\"}");
    }

    @Test
    void bothJacksonsWriteTheSameCanonicalBytes() throws Exception {
        Json three = new Jackson3Json();
        Json two = new Jackson2Json();
        List<String> documents = List.of(
                "{\"b\":{\"y\":[3,2,1],\"x\":1e3},\"a\":\"\\u00e9\\ud83d\\ude00\\n\"}",
                "[1.0,1.00,-0,0.1E-5,12345678901234567890123]",
                "{\"amount\":1999.00,\"items\":[{\"sku\":\"A\",\"qty\":1}],\"note\":null,\"gift\":false}",
                "\"plain\"", "42", "null");
        for (String document : documents) {
            assertThat(text(two.writeSorted(two.readExact(utf8(document)))))
                    .as(document).isEqualTo(text(three.writeSorted(three.readExact(utf8(document)))));
            assertThat(text(two.write(two.read(utf8(document)))))
                    .as(document).isEqualTo(text(three.write(three.read(utf8(document)))));
        }
    }

    @Test
    void theClassPathsJacksonThreeIsPreferred() {
        assertThat(Json.onClassPath().library()).startsWith("Jackson 3.");
    }

    @Test
    void aClassPathWithOnlyJacksonTwoUsesIt() throws Exception {
        try (URLClassLoader boot3 = new URLClassLoader(new URL[] {
                location(Json.class), location(org.jspecify.annotations.Nullable.class),
                location(com.fasterxml.jackson.databind.ObjectMapper.class),
                location(com.fasterxml.jackson.core.JsonFactory.class),
                location(com.fasterxml.jackson.annotation.JsonProperty.class)}, ClassLoader.getPlatformClassLoader())) {
            Class<?> json = boot3.loadClass(Json.class.getName());
            Object codec = json.getMethod("onClassPath").invoke(null);

            assertThat((String) json.getMethod("library").invoke(codec)).startsWith("Jackson 2.");
            assertThatThrownBy(() -> boot3.loadClass("tools.jackson.databind.json.JsonMapper"))
                    .isInstanceOf(ClassNotFoundException.class);
        }
    }

    @Test
    void aClassPathWithoutJacksonNamesBothArtifacts() throws Exception {
        try (URLClassLoader none = new URLClassLoader(new URL[] {
                location(Json.class), location(org.jspecify.annotations.Nullable.class)}, ClassLoader.getPlatformClassLoader())) {
            Class<?> json = none.loadClass(Json.class.getName());

            assertThatThrownBy(() -> json.getMethod("onClassPath").invoke(null))
                    .cause().isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("tools.jackson.core:jackson-databind")
                    .hasMessageContaining("com.fasterxml.jackson.core:jackson-databind");
        }
    }

    private static URL location(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }
}
