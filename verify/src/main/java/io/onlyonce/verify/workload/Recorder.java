package io.onlyonce.verify.workload;

import io.onlyonce.verify.history.HistoryWriter;
import io.onlyonce.verify.history.OpType;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpTimeoutException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Records one attempt as an invocation and its completion: 2xx is {@code ok}, 4xx {@code fail}
 * (the server refused it), 5xx and every transport failure {@code info} (it may have taken place).
 */
final class Recorder {

    /** A call to the service. */
    interface Call {
        Answer send() throws IOException, InterruptedException;
    }

    /**
     * The completion of one attempt.
     *
     * @param type ok, fail or info
     * @param answer the answer, or null when none came
     * @param value the completion's value as recorded
     */
    record Completion(OpType type, Answer answer, Map<String, Object> value) {

        boolean ok() {
            return type == OpType.OK;
        }

        String problem() {
            return answer == null ? null : answer.problem();
        }

        int status() {
            return answer == null ? 0 : answer.status();
        }
    }

    /** Adds what an answer says to a completion's value. */
    interface Reading {
        void read(Answer answer, Map<String, Object> value);
    }

    private final HistoryWriter history;

    Recorder(HistoryWriter history) {
        this.history = history;
    }

    Completion attempt(String process, String f, Map<String, Object> invocation, Call call, Reading reading)
            throws InterruptedException {
        history.record(process, OpType.INVOKE, f, invocation);
        Map<String, Object> value = new LinkedHashMap<>(invocation);
        Answer answer;
        try {
            answer = call.send();
        } catch (HttpTimeoutException timeout) {
            value.put("error", "timeout");
            history.record(process, OpType.INFO, f, value);
            return new Completion(OpType.INFO, null, value);
        } catch (ConnectException refused) {
            value.put("error", "connection-refused");
            history.record(process, OpType.INFO, f, value);
            return new Completion(OpType.INFO, null, value);
        } catch (IOException lost) {
            value.put("error", "connection-lost");
            history.record(process, OpType.INFO, f, value);
            return new Completion(OpType.INFO, null, value);
        } catch (InterruptedException interrupted) {
            value.put("error", "interrupted");
            history.record(process, OpType.INFO, f, value);
            throw interrupted;
        } catch (RuntimeException bug) {
            // the client itself failed: the operation's fate is unknown, and the run cannot vouch for it
            value.put("error", "client-error: " + bug);
            history.record(process, OpType.INFO, f, value);
            throw bug;
        }
        value.put("status", answer.status());
        String problem = answer.problem();
        if (problem != null) {
            value.put("problem", problem);
        }
        OpType type = answer.success() ? OpType.OK : answer.status() >= 400 && answer.status() < 500 ? OpType.FAIL : OpType.INFO;
        if (type == OpType.OK) {
            value.put("replayed", answer.replayed());
            reading.read(answer, value);
        } else if (type == OpType.INFO) {
            value.put("error", "status " + answer.status());
        } else {
            String orderNo = answer.text("orderNo");
            if (orderNo != null) {
                value.put("orderNo", orderNo);
            }
            // a one-time token used again: 409 duplicate-submission with what the first request answered
            tools.jackson.databind.JsonNode first = answer.json().path("firstResult");
            if (first.isObject()) {
                value.put("firstStatus", answer.json().path("firstStatus").asInt());
                if (first.hasNonNull("reservationId")) {
                    value.put("firstReservationId", first.get("reservationId").asString());
                }
                if (first.hasNonNull("orderNo")) {
                    value.put("firstOrderNo", first.get("orderNo").asString());
                }
            }
        }
        history.record(process, type, f, value);
        return new Completion(type, answer, value);
    }
}
