package io.onlyonce.support;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A library's release line, {@code major.minor}, as read from its version ({@code 3.5.7},
 * {@code 4.2.0-SNAPSHOT}): what the start-up checks of the Spring integrations compare.
 *
 * @param major the major version
 * @param minor the minor version, 0 when the version has none
 */
public record ReleaseLine(int major, int minor) {

    /** The line of {@code version}, or empty when there is none or it is not numeric (a shaded jar, a custom build). */
    public static Optional<ReleaseLine> of(@Nullable String version) {
        if (version == null || version.isBlank()) {
            return Optional.empty();
        }
        String[] parts = version.split("[.-]");
        try {
            return Optional.of(new ReleaseLine(Integer.parseInt(parts[0]), parts.length > 1 ? Integer.parseInt(parts[1]) : 0));
        } catch (NumberFormatException unknown) {
            return Optional.empty();
        }
    }

    /** Whether this line is older than {@code major.minor}. */
    public boolean isBefore(int major, int minor) {
        return this.major < major || (this.major == major && this.minor < minor);
    }
}
