package io.onlyonce.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The rule that an {@code internal} package is used only inside its own module, checked on the
 * compiled classes of another module: a test there names one of its classes and the packages it
 * must not use. Every reference a class file makes to another class (a field, a call, a type in a
 * signature, an annotation) names that class in its constant pool, so the check reads each
 * {@code .class} file under the class's output folder for the package's binary name.
 *
 * <pre>{@code
 * @Test
 * void usesNoInternalPackageOfAnotherModule() {
 *     InternalPackages.assertNotReferenced(ReactiveRedisWindowStore.class, "io.onlyonce.redis.internal");
 *     InternalPackages.assertNotReferenced(getClass(), "io.onlyonce.redis.internal");   // the tests too
 * }
 * }</pre>
 */
public final class InternalPackages {

    private InternalPackages() {
    }

    /**
     * Fails naming every class file, in the output folder (or jar's folder tree) that holds
     * {@code anyClassOfTheModule}, that references a class of one of {@code packages} or of a package
     * under them.
     *
     * @param packages package names such as {@code "io.onlyonce.redis.internal"}
     */
    public static void assertNotReferenced(Class<?> anyClassOfTheModule, String... packages) {
        Path root = root(anyClassOfTheModule);
        List<String> offenders = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
                String constants = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
                for (String name : packages) {
                    if (constants.contains(name.replace('.', '/') + '/')) {
                        offenders.add(root.relativize(file) + " uses " + name);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(offenders).as("classes under %s that use another module's internal package", root).isEmpty();
    }

    private static Path root(Class<?> type) {
        try {
            Path root = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (!Files.isDirectory(root)) {
                throw new IllegalArgumentException(type + " is not in an output folder but in " + root);
            }
            return root;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
