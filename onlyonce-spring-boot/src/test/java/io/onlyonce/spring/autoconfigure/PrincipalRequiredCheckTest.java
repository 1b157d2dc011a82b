package io.onlyonce.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class PrincipalRequiredCheckTest {

    private static final List<String> ONE = List.of("OrderController.create");

    @Test
    void anApplicationWithoutSecurityOrResolverIsToldWhatToSet() {
        assertThat(PrincipalRequiredCheck.warning(true, false, false, "PrincipalResolver", ONE)).isEqualTo(
                "OnlyOnce: onlyonce.principal-required is true (the default), but Spring Security is not on the class"
                + " path and no PrincipalResolver bean is declared: unless the server authenticates requests itself,"
                + " they carry no principal, and every request to OrderController.create is refused with 400"
                + " principal-required. Set onlyonce.principal-required=false if the callers are anonymous (their"
                + " keys are then shared per endpoint), or add Spring Security, or declare a PrincipalResolver bean"
                + " that names the caller.");
    }

    @Test
    void nothingIsSaidWhereCallersAreNamedOrNothingIsProtected() {
        assertThat(PrincipalRequiredCheck.warning(false, false, false, "PrincipalResolver", ONE)).as("property off").isNull();
        assertThat(PrincipalRequiredCheck.warning(true, true, false, "PrincipalResolver", ONE)).as("Spring Security").isNull();
        assertThat(PrincipalRequiredCheck.warning(true, false, true, "PrincipalResolver", ONE)).as("own resolver").isNull();
        assertThat(PrincipalRequiredCheck.warning(true, false, false, "PrincipalResolver", List.of())).as("nothing protected")
                .isNull();
    }

    @Test
    void manyEndpointsAreNamedByTheFirstThree() {
        assertThat(PrincipalRequiredCheck.warning(true, false, false, "ReactivePrincipalResolver",
                List.of("A.a", "B.b", "C.c", "D.d", "2 functional routes")))
                .contains("every request to A.a, B.b, C.c and 2 more is refused")
                .contains("declare a ReactivePrincipalResolver bean");
    }
}
