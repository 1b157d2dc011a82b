package io.onlyonce.spring.reactive;

import java.util.ArrayList;
import java.util.List;
import org.springframework.http.HttpHeaders;

/**
 * Every value of one header, through {@code forEach}, which Spring Framework 6.2 and 7 both have
 * with one signature: {@code getOrEmpty} and {@code get} take an {@code Object} on 6.2 and a
 * {@code String} on 7, so code compiled against one fails on the other.
 */
final class HeaderValues {

    private HeaderValues() {
    }

    static List<String> of(HttpHeaders headers, String name) {
        List<String> values = new ArrayList<>();
        headers.forEach((header, list) -> {
            if (header.equalsIgnoreCase(name)) {
                values.addAll(list);
            }
        });
        return values;
    }
}
