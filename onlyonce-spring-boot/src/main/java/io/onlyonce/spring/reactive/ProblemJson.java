package io.onlyonce.spring.reactive;

import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/** The one place the reactive side writes JSON: a problem's members as bytes. */
final class ProblemJson {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private ProblemJson() {
    }

    static byte[] bytes(Map<String, Object> members) {
        return JSON.writeValueAsBytes(members);
    }
}
