package io.onlyonce.messaging.kafka;

import io.onlyonce.messaging.kafka.KafkaPublishException.Reason;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.jspecify.annotations.Nullable;

/** Turns what the producer reports into a {@link KafkaPublishException} that says why. */
final class Failures {

    private Failures() {
    }

    /**
     * The exception for a send that failed with {@code error}.
     *
     * @param error what the producer threw or passed to the callback
     * @param messageId the message's id
     * @param topic the topic
     * @param handedOver whether {@code send} accepted the record (the callback reported the failure)
     * @return the exception to complete the future with
     */
    public static KafkaPublishException of(Throwable error, @Nullable String messageId, String topic, boolean handedOver) {
        Throwable cause = unwrap(error);
        if (cause instanceof KafkaPublishException publish) {
            return publish;
        }
        String what = "message " + messageId + " to topic '" + topic + "'";
        if (isMissingTopic(cause)) {
            return new KafkaPublishException(Reason.TOPIC_NOT_FOUND, messageId, topic, what + " was not published: topic '"
                    + topic + "' not found (" + cause.getMessage() + "; topics are not created automatically: create it, "
                    + "or check that the broker can be reached)", cause);
        }
        if (cause instanceof TimeoutException || cause instanceof RetriableException) {
            return new KafkaPublishException(Reason.TIMED_OUT, messageId, topic, what
                    + " was not acknowledged in time: " + cause.getMessage(), cause);
        }
        if (!handedOver || cause instanceof InterruptException || cause instanceof IllegalStateException) {
            return new KafkaPublishException(Reason.NOT_SENT, messageId, topic, what + " was not sent: " + cause, cause);
        }
        return new KafkaPublishException(Reason.REJECTED, messageId, topic, what + " was rejected: " + cause, cause);
    }

    /**
     * Whether the producer reported a topic that does not exist: an unknown topic, or no metadata for it.
     *
     * @param error what the producer reported
     * @return true for a missing topic
     */
    public static boolean isMissingTopic(Throwable error) {
        Throwable cause = unwrap(error);
        return cause instanceof UnknownTopicOrPartitionException
                || (cause instanceof TimeoutException && String.valueOf(cause.getMessage()).contains("not present in metadata"));
    }

    private static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof ExecutionException || cause instanceof CompletionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
