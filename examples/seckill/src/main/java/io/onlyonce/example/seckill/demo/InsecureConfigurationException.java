package io.onlyonce.example.seckill.demo;

import java.util.List;

/** Start-up was refused: outside demo mode, a secret is missing, too short or a published demo value. */
public class InsecureConfigurationException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    public InsecureConfigurationException(List<String> problems) {
        super("refusing to start outside demo mode with forgeable secrets: " + String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    /** One line per secret that is wrong. */
    public List<String> problems() {
        return problems;
    }
}
