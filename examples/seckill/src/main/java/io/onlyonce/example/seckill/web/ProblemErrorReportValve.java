package io.onlyonce.example.seckill.web;

import jakarta.servlet.RequestDispatcher;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.tomcat.util.http.MimeHeaders;
import org.jspecify.annotations.Nullable;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import tools.jackson.core.json.JsonWriteFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * Tomcat's error report as a problem, for the errors Tomcat answers before any servlet or filter
 * runs: a request line or header it cannot parse (a CR or NUL in a header, a header section over
 * 8 KB or more than 100 headers), an address it refuses ({@code %2F}, {@code %00}, a backslash), an HTTP version it does
 * not speak. Everything that reaches the application is answered by it (and its {@code /error}
 * page); this valve writes only where nothing was written. Never shows the exception or the input.
 */
public class ProblemErrorReportValve extends ErrorReportValve {

    private final Problems problems;
    /** The body in UTF-8, as JSON is (RFC 8259), written as bytes: no charset to name. */
    private final JsonMapper json = JsonMapper.builder().build();
    /**
     * For the rare report whose response already handed out its writer: ASCII only, every other
     * character escaped, since that writer encodes in ISO-8859-1 unless a charset is set.
     */
    private final JsonMapper asciiJson = JsonMapper.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();

    public ProblemErrorReportValve(Problems problems) {
        this.problems = problems;
    }

    @Override
    protected void report(Request request, Response response, @Nullable Throwable throwable) {
        int status = response.getStatus();
        if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
            return;
        }
        AppProblem type = classify(status, throwable != null ? throwable
                : (Throwable) request.getAttribute(RequestDispatcher.ERROR_EXCEPTION), rawUri(request));
        ProblemDetail problem = problems.create(type, locale(request));
        if (type != AppProblem.forStatus(status)) {
            status = type.status().value();
        }
        problem.setStatus(status);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", problem.getType().toString());
        body.put("title", problem.getTitle());
        body.put("status", status);
        body.put("detail", problem.getDetail());
        String instance = instance(rawUri(request));
        if (instance != null) {
            body.put("instance", instance);
        }
        try {
            response.setStatus(status);
            response.setHeader(RequestIdFilter.HEADER, requestId(request));
            response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
            OutputStream out = outputStream(response);
            if (out != null) {
                byte[] bytes = json.writeValueAsBytes(body);
                response.setContentLength(bytes.length);
                out.write(bytes);
                response.finishResponse();
            } else {
                Writer writer = response.getReporter();
                if (writer != null) {
                    writer.write(asciiJson.writeValueAsString(body));
                    response.finishResponse();
                }
            }
        } catch (IOException | IllegalStateException e) {
            // the connection is gone or the response was taken over: nothing more to say
        }
    }

    /** The response's byte stream, or null when its writer was already handed out. */
    private static @Nullable OutputStream outputStream(Response response) throws IOException {
        try {
            return response.getOutputStream();
        } catch (IllegalStateException usingWriter) {
            return null;
        }
    }

    /** What went wrong, as far as Tomcat tells. */
    static AppProblem classify(int status, @Nullable Throwable throwable, String rawUri) {
        if (status == 505) {
            return AppProblem.HTTP_VERSION_NOT_SUPPORTED;
        }
        if (status == 400 && (mentionsTooLarge(throwable) || tooManyHeaders(throwable))) {
            return AppProblem.REQUEST_HEADER_TOO_LARGE;
        }
        String uri = rawUri.toLowerCase(Locale.ROOT);
        if (status == 400 && (uri.contains("%2f") || uri.contains("%5c") || uri.contains("%00") || uri.contains("\\"))) {
            return AppProblem.REQUEST_REJECTED;
        }
        if (status == 400) {
            return AppProblem.MALFORMED_HTTP_REQUEST;
        }
        return AppProblem.forStatus(status);
    }

    private static boolean mentionsTooLarge(@Nullable Throwable throwable) {
        for (Throwable t = throwable; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().toLowerCase(Locale.ROOT).contains("too large")) {
                return true;
            }
        }
        return false;
    }

    /**
     * More headers than the connector's {@code maxHeaderCount} (100): Tomcat's {@code MimeHeaders}
     * refuses the next one with an {@code IllegalStateException}. Its message is localised, so the
     * class that threw decides; only a JVM that records no stack traces falls back on the English
     * message.
     */
    private static boolean tooManyHeaders(@Nullable Throwable throwable) {
        for (Throwable t = throwable; t != null; t = t.getCause()) {
            if (!(t instanceof IllegalStateException)) {
                continue;
            }
            StackTraceElement[] trace = t.getStackTrace();
            if (trace.length > 0 ? MimeHeaders.class.getName().equals(trace[0].getClassName())
                    : t.getMessage() != null && t.getMessage().contains("maximum allowed number of headers")) {
                return true;
            }
        }
        return false;
    }

    /** The address as it was sent, or "" when the request line could not be read. */
    private static String rawUri(Request request) {
        try {
            String uri = request.getCoyoteRequest().requestURI().toString();
            return uri == null ? "" : uri;
        } catch (RuntimeException e) {
            return "";
        }
    }

    /**
     * The path of the address, when it is plain enough to repeat (letters, digits and
     * {@code / _ . ~ -} only, as {@code ProblemErrorController} keeps it, and no empty, {@code .} or
     * {@code ..} segment); else none: what Tomcat refused is not echoed.
     */
    public static @Nullable String instance(String rawUri) {
        int query = rawUri.indexOf('?');
        String path = query < 0 ? rawUri : rawUri.substring(0, query);
        if (path.isEmpty() || path.length() > 2048 || path.charAt(0) != '/' || path.contains("//")
                || path.contains("/./") || path.contains("/../") || path.endsWith("/.") || path.endsWith("/..")) {
            return null;
        }
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '/' || c == '_' || c == '.' || c == '~' || c == '-';
            if (!plain) {
                return null;
            }
        }
        return path;
    }

    /** The caller's {@code X-Request-ID} if its headers could be read and it is acceptable, else a new one. */
    private static String requestId(Request request) {
        String given;
        try {
            given = RequestIdFilter.accepted(request.getHeader(RequestIdFilter.HEADER));
        } catch (RuntimeException e) {
            given = null;
        }
        return given != null ? given : RequestIdFilter.newId();
    }

    /** The caller's language if its headers could be read at all, else English. */
    private static Locale locale(Request request) {
        try {
            return request.getHeader("Accept-Language") == null ? Locale.ENGLISH
                    : io.onlyonce.spring.web.RequestLanguage.of(request);
        } catch (RuntimeException e) {
            return Locale.ENGLISH;
        }
    }
}
