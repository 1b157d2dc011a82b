package io.onlyonce.http;

import java.net.URLDecoder;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The fields of url-encoded text (an {@code application/x-www-form-urlencoded} body, or a query
 * string), decoded as servlet containers decode them, so that every platform reads a form alike.
 */
public final class FormFields {

    private FormFields() {
    }

    /**
     * The fields of {@code text} in the order sent: pairs split at {@code &}, name and value at the
     * first {@code =}, {@code +} and percent escapes decoded with {@code charset}. A pair without
     * {@code =} has the value "", as in a servlet request; one without a name or with a malformed
     * escape is left out, as Tomcat leaves it out.
     *
     * @return each name with its values in the order sent, names in the order they first appear
     */
    public static Map<String, List<String>> parse(@Nullable String text, Charset charset) {
        Map<String, List<String>> fields = new LinkedHashMap<>();
        if (text == null || text.isEmpty()) {
            return fields;
        }
        for (String pair : text.split("&")) {
            int equals = pair.indexOf('=');
            String name = equals < 0 ? pair : pair.substring(0, equals);
            String value = equals < 0 ? "" : pair.substring(equals + 1);
            if (!name.isEmpty()) {
                try {
                    String decodedName = URLDecoder.decode(name, charset);
                    String decodedValue = URLDecoder.decode(value, charset);
                    fields.computeIfAbsent(decodedName, n -> new ArrayList<>()).add(decodedValue);
                } catch (IllegalArgumentException malformed) {
                    // left out, as the container leaves it out
                }
            }
        }
        fields.replaceAll((name, values) -> Collections.unmodifiableList(values));
        return fields;
    }
}
