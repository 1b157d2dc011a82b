package io.onlyonce.example.seckill.auth;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.Enumeration;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.security.web.firewall.FirewalledRequest;
import org.springframework.security.web.firewall.HttpFirewall;
import org.springframework.security.web.firewall.RequestRejectedException;

/**
 * A firewall that also checks the {@code Content-Type} when it is read as
 * {@code getContentType()}. The wrapped firewall (Spring Security's {@code StrictHttpFirewall})
 * checks a header's value when it is read with {@code getHeader}; Spring MVC's {@code consumes}
 * condition reads the content type with {@code getContentType()}, past that check. So a control
 * character in a {@code Content-Type} parameter was 415 on an endpoint that declares what it
 * consumes and 400 on one that reads the header (the payment callback); now it is the same refusal
 * ({@code malformed-http-request}, 400) wherever it is read first, for every {@code Content-Type}
 * line the request has, and a second line is refused too.
 */
final class ContentTypeFirewall implements HttpFirewall {

    private final HttpFirewall firewall;
    private final Predicate<String> allowedHeaderValues;

    /**
     * @param firewall the firewall every request goes through first
     * @param allowedHeaderValues the header values the firewall lets through
     */
    ContentTypeFirewall(HttpFirewall firewall, Predicate<String> allowedHeaderValues) {
        this.firewall = firewall;
        this.allowedHeaderValues = allowedHeaderValues;
    }

    @Override
    public FirewalledRequest getFirewalledRequest(HttpServletRequest request) {
        FirewalledRequest checked = firewall.getFirewalledRequest(request);
        return new FirewalledRequest(checked) {

            private boolean contentTypeChecked;

            @Override
            public @Nullable String getContentType() {
                if (!contentTypeChecked) {
                    checkContentType(checked);
                    contentTypeChecked = true;
                }
                return super.getContentType();
            }

            @Override
            public void reset() {
                checked.reset();
            }
        };
    }

    /**
     * Every {@code Content-Type} line of the request, not only the first that {@code getContentType()}
     * returns: a value with a control character, or a second line (the field is a singleton, RFC 9110
     * 8.3, and a second value is where a control character would otherwise pass), is refused.
     */
    private void checkContentType(HttpServletRequest request) {
        Enumeration<String> values = request.getHeaders(HttpHeaders.CONTENT_TYPE);
        int count = 0;
        while (values != null && values.hasMoreElements()) {
            String value = values.nextElement();
            count++;
            if (value != null && !allowedHeaderValues.test(value)) {
                throw new RequestRejectedException("The request was rejected because the header \"Content-Type\" has a value that is not allowed.");
            }
        }
        if (count > 1) {
            throw new RequestRejectedException("The request was rejected because the header \"Content-Type\" was sent more than once.");
        }
    }

    @Override
    public HttpServletResponse getFirewalledResponse(HttpServletResponse response) {
        return firewall.getFirewalledResponse(response);
    }
}
