package io.onlyonce.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The library's shape, on the compiled main classes of every published module (from the reactor's
 * output folders or the installed jars). Each rule names the offending dependency when it fails.
 */
class ArchitectureTest {

    /** The modules checked: each must be found on the class path, so a rule never passes on nothing. */
    private static final Set<String> MODULES = Set.of("onlyonce-core", "onlyonce-redis", "onlyonce-redis-spring-data",
            "onlyonce-jdbc", "onlyonce-messaging", "onlyonce-messaging-rabbit", "onlyonce-messaging-kafka",
            "onlyonce-spring-boot", "onlyonce-spring-boot-webmvc", "onlyonce-spring-boot-webflux",
            "onlyonce-spring-boot-messaging", "onlyonce-spring-boot-amqp", "onlyonce-spring-boot-kafka",
            "onlyonce-gateway");

    private static final Pattern INTERNAL = Pattern.compile("io\\.onlyonce(\\.\\w+)*\\.internal(\\.\\w+)*");
    /** {@code .../onlyonce-jdbc/target/classes/...} or {@code .../onlyonce-jdbc-0.1.0-SNAPSHOT.jar!/...} */
    private static final Pattern OUTPUT_FOLDER = Pattern.compile(".*/([\\w.-]+)/target/classes/.*");
    private static final Pattern JAR = Pattern.compile(".*/([a-z-]+?)-\\d[^/]*\\.jar!/.*");

    private static JavaClasses library;

    @BeforeAll
    static void importTheLibrary() {
        library = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> MODULES.contains(moduleOf(location.asURI().toString())))
                .importPackages("io.onlyonce");
    }

    @Test
    void everyModuleIsChecked() {
        Set<String> found = new TreeSet<>();
        library.forEach(type -> found.add(module(type)));
        assertThat(found).containsExactlyInAnyOrderElementsOf(MODULES);
    }

    @Test
    void anInternalPackageIsUsedByItsOwnModuleOnly() {
        classes().should(useOnlyTheirOwnModulesInternals()).check(library);
    }

    @Test
    void theInternalRuleRefusesAClassOutsideTheModuleThatUsesItsInternalPackage() {
        JavaClasses offending = new ClassFileImporter().importClasses(OffendingClass.class,
                io.onlyonce.internal.JsonCanonicalizer.class);
        assertThatThrownBy(() -> classes().should(useOnlyTheirOwnModulesInternals()).check(offending))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("OffendingClass.canonical")
                .hasMessageContaining("uses onlyonce-core's internal package");
    }

    @Test
    void noPackageCycles() {
        slices().matching("io.onlyonce.(**)").should().beFreeOfCycles().check(library);
    }

    /** The RabbitMQ transport is the exception: it is built on Spring AMQP's client. */
    @Test
    void coreAndTheStoresAreFreeOfSpring() {
        noClasses().that().resideInAnyPackage("io.onlyonce", "io.onlyonce.engine..", "io.onlyonce.store..",
                        "io.onlyonce.memory..", "io.onlyonce.token..", "io.onlyonce.window..", "io.onlyonce.json..",
                        "io.onlyonce.support..", "io.onlyonce.http..", "io.onlyonce.internal..", "io.onlyonce.jdbc..",
                        "io.onlyonce.redis",
                        "io.onlyonce.redis.script..", "io.onlyonce.redis.internal..", "io.onlyonce.messaging",
                        "io.onlyonce.messaging.internal..", "io.onlyonce.messaging.kafka..")
                .should().dependOnClassesThat().resideInAnyPackage("org.springframework..", "jakarta.servlet..",
                        "reactor..")
                .check(library);
    }

    @Test
    void theCoreAutoConfigurationKnowsNoWebPlatformNorBroker() {
        noClasses().that().resideInAPackage("io.onlyonce.spring..")
                .and(new com.tngtech.archunit.base.DescribedPredicate<JavaClass>("in onlyonce-spring-boot") {
                    @Override
                    public boolean test(JavaClass type) {
                        return module(type).equals("onlyonce-spring-boot");
                    }
                })
                .should().dependOnClassesThat().resideInAnyPackage("org.springframework.web.servlet..",
                        "org.springframework.web.reactive..", "org.springframework.web.server..",
                        "org.springframework.kafka..", "org.springframework.amqp..", "io.onlyonce.spring.web..",
                        "io.onlyonce.spring.reactive..", "io.onlyonce.spring.messaging..")
                .check(library);
    }

    private static ArchCondition<JavaClass> useOnlyTheirOwnModulesInternals() {
        return new ArchCondition<>("use no internal package of another module") {
            @Override
            public void check(JavaClass origin, ConditionEvents events) {
                for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
                    JavaClass target = dependency.getTargetClass().getBaseComponentType();
                    if (INTERNAL.matcher(target.getPackageName()).matches()
                            && !module(target).equals(module(origin))) {
                        events.add(SimpleConditionEvent.violated(dependency, dependency.getDescription()
                                + " (" + module(origin) + " uses " + module(target) + "'s internal package)"));
                    }
                }
            }
        };
    }

    private static String module(JavaClass type) {
        return type.getSource().map(source -> moduleOf(source.getUri().toString())).orElse("?");
    }

    private static String moduleOf(String uri) {
        var folder = OUTPUT_FOLDER.matcher(uri);
        if (folder.matches()) {
            return folder.group(1);
        }
        var jar = JAR.matcher(uri);
        return jar.matches() ? jar.group(1) : "?";
    }
}
