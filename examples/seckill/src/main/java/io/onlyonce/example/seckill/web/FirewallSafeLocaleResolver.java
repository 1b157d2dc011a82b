package io.onlyonce.example.seckill.web;

import jakarta.servlet.http.HttpServletRequest;
import java.util.Locale;
import org.springframework.web.servlet.i18n.AcceptHeaderLocaleResolver;

/**
 * The request's locale as every problem of this service takes it ({@link Problems#locale}): from
 * {@code Accept-Language}, English when there is none or when Spring Security's firewall refuses its
 * value (a control character). So the answers of Spring MVC and of the filters agree, a bad
 * {@code Accept-Language} is treated alike on every path, and the handler answering any other
 * problem of the request does not fail on it.
 */
final class FirewallSafeLocaleResolver extends AcceptHeaderLocaleResolver {

    @Override
    public Locale resolveLocale(HttpServletRequest request) {
        return Problems.locale(request);
    }
}
