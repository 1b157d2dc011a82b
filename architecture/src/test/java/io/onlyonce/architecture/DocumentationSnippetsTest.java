package io.onlyonce.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every Java snippet of the documentation (README.md, docs/*.md and the modules' README.md files)
 * compiles as it is written, imports included: each block is a compilation unit of its own, compiled
 * against the published modules and the libraries their users have (Java 17).
 */
class DocumentationSnippetsTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Pattern BLOCK = Pattern.compile("(?m)^```java\\n(.*?)^```$", Pattern.DOTALL);
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+([\\w.]+);");
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "(?m)^public\\s+(?:final\\s+|abstract\\s+|sealed\\s+)*(?:class|record|interface|enum)\\s+(\\w+)");

    /** One snippet: where it is, and its text. */
    record Snippet(String where, String source) {
    }

    static List<Snippet> snippets() throws IOException {
        List<Path> documents = new ArrayList<>();
        documents.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(path -> path.toString().endsWith(".md")).sorted().forEach(documents::add);
        }
        try (Stream<Path> modules = Files.list(ROOT)) {
            modules.filter(path -> path.getFileName().toString().startsWith("onlyonce-"))
                    .map(path -> path.resolve("README.md")).filter(Files::isRegularFile).sorted().forEach(documents::add);
        }
        List<Snippet> snippets = new ArrayList<>();
        for (Path document : documents) {
            String text = Files.readString(document, StandardCharsets.UTF_8);
            Matcher block = BLOCK.matcher(text);
            while (block.find()) {
                int line = (int) text.substring(0, block.start()).chars().filter(c -> c == '\n').count() + 1;
                snippets.add(new Snippet(ROOT.relativize(document) + ":" + line, block.group(1)));
            }
        }
        return snippets;
    }

    @Test
    void everyJavaSnippetCompilesAsWritten(@TempDir Path work) throws IOException {
        List<Snippet> snippets = snippets();
        assertThat(snippets).as("the snippets found").hasSizeGreaterThan(20);
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        List<String> failures = new ArrayList<>();
        int n = 0;
        for (Snippet snippet : snippets) {
            Path dir = work.resolve("snippet" + n++);
            Matcher pkg = PACKAGE.matcher(snippet.source());
            Matcher type = PUBLIC_TYPE.matcher(snippet.source());
            Path source = dir.resolve("src").resolve(pkg.find() ? pkg.group(1).replace('.', '/') : "")
                    .resolve((type.find() ? type.group(1) : "Snippet") + ".java");
            Files.createDirectories(source.getParent());
            Files.createDirectories(dir.resolve("out"));
            Files.writeString(source, snippet.source(), StandardCharsets.UTF_8);
            DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
            try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT,
                    StandardCharsets.UTF_8)) {
                boolean compiled = compiler.getTask(null, files, diagnostics, List.of("--release", "17", "-proc:none",
                        "-classpath", System.getProperty("java.class.path"), "-d", dir.resolve("out").toString()),
                        null, files.getJavaFileObjects(source)).call();
                if (!compiled) {
                    StringBuilder report = new StringBuilder(snippet.where());
                    for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
                        if (diagnostic.getKind() == Diagnostic.Kind.ERROR) {
                            report.append("\n  line ").append(diagnostic.getLineNumber()).append(": ")
                                    .append(diagnostic.getMessage(Locale.ROOT));
                        }
                    }
                    failures.add(report.toString());
                }
            }
        }
        assertThat(failures).as("snippets that do not compile as written").isEmpty();
    }
}
