package io.onlyonce.example.seckill.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.i18n.LocaleContextHolder;
import org.springframework.context.support.ResourceBundleMessageSource;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.CannotCreateTransactionException;

/** What a client is told when the database cannot be reached, and when something else fails. */
class ApiExceptionHandlerTest {

    private final ApiExceptionHandler handler = handler();

    @AfterEach
    void resetLocale() {
        LocaleContextHolder.resetLocaleContext();
    }

    @Test
    void aDatabaseThatCannotBeReachedIs503WithRetryAfterAndNoDetailOfTheFailure() {
        LocaleContextHolder.setLocale(Locale.ENGLISH);
        ResponseEntity<ProblemDetail> answer = handler.handleDatabaseDown(new CannotCreateTransactionException(
                "Could not open JDBC Connection for transaction", new IllegalStateException("Connection to 127.0.0.1:5499 refused")));

        assertThat(answer.getStatusCode().value()).isEqualTo(503);
        assertThat(answer.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("2");
        assertThat(answer.getHeaders().getContentType()).hasToString("application/problem+json");
        ProblemDetail problem = answer.getBody();
        assertThat(problem.getType()).hasToString("urn:onlyonce:problem:database-unavailable");
        assertThat(problem.getTitle()).isEqualTo("Service unavailable");
        assertThat(problem.getDetail()).contains("nothing was changed").doesNotContain("5499").doesNotContain("JDBC");
    }

    @Test
    void inChineseToo() {
        LocaleContextHolder.setLocale(Locale.SIMPLIFIED_CHINESE);
        ResponseEntity<ProblemDetail> answer = handler.handleDatabaseDown(
                new DataAccessResourceFailureException("connection lost"));

        assertThat(answer.getStatusCode().value()).isEqualTo(503);
        assertThat(answer.getBody().getTitle()).isEqualTo("服务暂不可用");
        assertThat(answer.getBody().getDetail()).isEqualTo("服务暂时无法连接数据库，未做任何更改，请稍后再试。");
    }

    @Test
    void anythingElseUnexpectedStays500WithoutRetryAfter() {
        LocaleContextHolder.setLocale(Locale.ENGLISH);
        ResponseEntity<ProblemDetail> answer = handler.handleUnexpected(new IllegalStateException("a bug"));

        assertThat(answer.getStatusCode().value()).isEqualTo(500);
        assertThat(answer.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isNull();
        assertThat(answer.getBody().getType()).hasToString("urn:onlyonce:problem:internal-error");
    }

    private static ApiExceptionHandler handler() {
        ResourceBundleMessageSource messages = new ResourceBundleMessageSource();
        messages.setBasename("messages");
        messages.setDefaultEncoding("UTF-8");
        messages.setFallbackToSystemLocale(false);
        return new ApiExceptionHandler(new Problems(messages, "urn:onlyonce:problem:"), messages);
    }
}
