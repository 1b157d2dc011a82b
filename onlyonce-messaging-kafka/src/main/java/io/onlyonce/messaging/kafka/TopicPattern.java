package io.onlyonce.messaging.kafka;

import java.util.Objects;

/**
 * An AMQP topic-exchange pattern matched against a dot-separated message type: {@code *} matches
 * exactly one word, {@code #} zero or more words, any other word itself. {@code #} matches every
 * type, the empty one included.
 */
final class TopicPattern {

    private final String pattern;
    private final String[] words;

    private TopicPattern(String pattern) {
        this.pattern = pattern;
        this.words = split(pattern);
    }

    /**
     * The pattern of {@code pattern}.
     *
     * @param pattern for example {@code order.*} or {@code order.#}
     * @return the compiled pattern
     * @throws IllegalArgumentException when it is empty
     */
    public static TopicPattern of(String pattern) {
        Objects.requireNonNull(pattern, "pattern");
        if (pattern.isEmpty()) {
            throw new IllegalArgumentException("a message-type pattern must not be empty (# matches every type)");
        }
        return new TopicPattern(pattern);
    }

    /**
     * Whether {@code type} matches.
     *
     * @param type a message type such as {@code order.paid}; empty when a record has none
     * @return true when it matches
     */
    public boolean matches(String type) {
        String[] typeWords = split(type);
        // matched[i][j]: the first i pattern words match the first j type words
        boolean[][] matched = new boolean[words.length + 1][typeWords.length + 1];
        matched[0][0] = true;
        for (int i = 1; i <= words.length; i++) {
            String word = words[i - 1];
            for (int j = 0; j <= typeWords.length; j++) {
                if (word.equals("#")) {
                    matched[i][j] = matched[i - 1][j] || (j > 0 && matched[i][j - 1]);
                } else if (j > 0) {
                    matched[i][j] = matched[i - 1][j - 1] && (word.equals("*") || word.equals(typeWords[j - 1]));
                }
            }
        }
        return matched[words.length][typeWords.length];
    }

    private static String[] split(String text) {
        return text.isEmpty() ? new String[0] : text.split("\\.", -1);
    }

    @Override
    public String toString() {
        return pattern;
    }
}
