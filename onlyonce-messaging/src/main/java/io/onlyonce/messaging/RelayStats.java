package io.onlyonce.messaging;

/**
 * What one {@link OutboxRelay} did since it was created. The counts are read one after another,
 * not as one snapshot.
 *
 * @param polls polls run, whatever they found and whether they failed
 * @param claimed rows claimed (attempts started)
 * @param sent messages the broker confirmed
 * @param retried failed attempts put back to PREPARED with a backoff
 * @param failed messages that became FAILED
 * @param pollsFailed polls that failed on the database
 */
public record RelayStats(long polls, long claimed, long sent, long retried, long failed, long pollsFailed) {
}
