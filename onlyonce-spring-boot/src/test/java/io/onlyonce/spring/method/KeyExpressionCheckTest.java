package io.onlyonce.spring.method;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.spring.Idempotent;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.PrioritizedParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * The start-up check of key expressions: every variable must be one the evaluation defines, and a
 * property or method along a chain must exist on the declared type as far as that type is known.
 * Expressions it accepts are evaluated as at run time, to show that accepting them is right.
 */
class KeyExpressionCheckTest {

    /**
     * @param id the line's number
     * @param sku what it holds
     */
    record Line(String id, String sku) {
    }

    /**
     * @param lines the order's lines
     * @param note an optional note
     */
    record Order(List<Line> lines, Optional<String> note) {
    }

    /** A JavaBean with an {@code is} getter and a public field. */
    public static class Account {
        public String number = "acc-1";

        public boolean isActive() {
            return true;
        }
    }

    /** A type whose subclasses may add properties. */
    abstract static class Command {
    }

    /** A handler written once for every payload type. */
    abstract static class Handler<T> {
        @Idempotent(key = "#payload.id")
        public String handle(T payload) {
            return "ok";
        }
    }

    static class LineHandler extends Handler<Line> {
    }

    abstract static class TypoHandler<T> {
        @Idempotent(key = "#payload.idd")
        public String handle(T payload) {
            return "ok";
        }
    }

    static class AccountTypoHandler extends TypoHandler<Account> {
    }

    static class Keys {
        @Idempotent(key = "#order.lines[0].id + #order.lines.![#this.sku] + #order.lines.?[sku != null].size()")
        public String indexedAndProjected(Order order) {
            return "ok";
        }

        @Idempotent(key = "#order.lines[0].idd")
        public String indexedTypo(Order order) {
            return "ok";
        }

        @Idempotent(key = "#order.note?.length()")
        public String optional(Order order) {
            return "ok";
        }

        @Idempotent(key = "#account.number + #account.active")
        public String fieldAndIsGetter(Account account) {
            return "ok";
        }

        @Idempotent(key = "#account.numbr")
        public String fieldTypo(Account account) {
            return "ok";
        }

        @Idempotent(key = "#line.sku.toUpperCase().trim()")
        public String methods(Line line) {
            return "ok";
        }

        @Idempotent(key = "#line.sku.toUppercase()")
        public String methodTypo(Line line) {
            return "ok";
        }

        @Idempotent(key = "#command.orderId")
        public String abstractType(Command command) {
            return "ok";
        }

        @Idempotent(key = "#account.branch")
        public <T extends Account> String bounded(T account) {
            return "ok";
        }

        @Idempotent(key = "#lines.?[#root.prefix() != null]")
        public String rootInsideSelection(List<Line> lines) {
            return "ok";
        }

        @Idempotent(key = "#ids[0] + #byName['x']")
        public String containers(String[] ids, Map<String, String> byName) {
            return "ok";
        }

        @Idempotent(key = "(#base = #line.id) + #base")
        public String assigned(Line line) {
            return "ok";
        }

        @Idempotent(key = "@orders.next()")
        public String beanReference(Line line) {
            return "ok";
        }

        @Idempotent(key = "#format(#line.id)")
        public String function(Line line) {
            return "ok";
        }

        @Idempotent(key = "T(java.lang.String).valueOf(#line.id)")
        public String typeReference(Line line) {
            return "ok";
        }

        public String prefix() {
            return "p";
        }
    }

    @Test
    void chainsThroughIndexesProjectionsSelectionsAndMethodsAreAccepted() {
        assertAccepted(Keys.class, "indexedAndProjected",
                new Order(List.of(new Line("l-1", "s-1")), Optional.empty()));
        assertAccepted(Keys.class, "fieldAndIsGetter", new Account());
        assertAccepted(Keys.class, "methods", new Line("l-1", " s-1 "));
        assertAccepted(Keys.class, "rootInsideSelection", List.of(new Line("l-1", "s-1")));
        assertAccepted(Keys.class, "containers", new String[] {"a"}, Map.of("x", "b"));
        assertAccepted(Keys.class, "assigned", new Line("l-1", "s-1"));
        assertAccepted(Keys.class, "typeReference", new Line("l-1", "s-1"));
    }

    @Test
    void aTypeThatMayHoldMoreAtRunTimeIsNotChecked() {
        assertThat(problems(Keys.class, "optional")).as("Optional is unwrapped by ?.").isEmpty();
        assertThat(problems(Keys.class, "abstractType")).as("a subclass may have it").isEmpty();
    }

    @Test
    void aMisspeltMemberAlongAChainIsReported() {
        assertThat(problems(Keys.class, "indexedTypo")).containsExactly("key '#order.lines[0].idd' reads 'idd' of"
                + " #order.lines[0], but Line has no such property (id, sku); did you mean id?");
        assertThat(problems(Keys.class, "fieldTypo")).containsExactly("key '#account.numbr' reads 'numbr' of"
                + " #account, but Account has no such property (active, number); did you mean number?");
        assertThat(problems(Keys.class, "methodTypo")).containsExactly("key '#line.sku.toUppercase()' calls"
                + " toUppercase() on #line.sku, but String has no public method of that name; did you mean toUpperCase?");
    }

    @Test
    void beansAndFunctionsAreNotAvailable() {
        assertThat(problems(Keys.class, "beanReference")).containsExactly("key '@orders.next()' refers to the bean"
                + " @orders, but a key expression has no access to beans; pass the value as an argument");
        assertThat(problems(Keys.class, "function")).containsExactly("key '#format(#line.id)' uses #format, which"
                + " is not a variable of the method (available: #line, #p0, #a0, #root, #this)");
    }

    @Test
    void aTypeVariableIsCheckedAsTheTypeTheBeanGivesIt() {
        assertThat(problems(LineHandler.class, Handler.class, "handle")).isEmpty();
        assertThat(problems(AccountTypoHandler.class, TypoHandler.class, "handle")).containsExactly(
                "key '#payload.idd' reads 'idd' of #payload, but Account has no such property (active, number)");
        assertThat(problems(TypoHandler.class, TypoHandler.class, "handle")).as("T unknown").isEmpty();
        assertThat(problems(Keys.class, "bounded")).as("T may be a subclass of its bound").isEmpty();
    }

    @Test
    void withoutCompiledParameterNamesOnlyPositionsAreVariables() throws Exception {
        Method method = method(Keys.class, "methods");
        KeyVariables variables = KeyVariables.of(method, Keys.class, new PrioritizedParameterNameDiscoverer());
        SpelExpression expression = (SpelExpression) new SpelExpressionParser().parseExpression("#line.sku");

        assertThat(KeyExpressionCheck.problems("#line.sku", expression.getAST(), variables, Keys.class)).containsExactly(
                "key '#line.sku' uses #line, which is not a variable of the method (available: #p0, #a0, #root,"
                        + " #this); the parameter names are not compiled in (javac -parameters), only #p0, #a0...");
    }

    @Test
    void aSuggestionIsOnlyMadeForANearName() {
        assertThat(NearestName.among("reqest", List.of("request", "p0"))).contains("request");
        assertThat(NearestName.among("x", List.of("p0", "a0"))).isEmpty();
        assertThat(NearestName.among("customerId", List.of("id", "item"))).isEmpty();
    }

    private static List<String> problems(Class<?> type, String name) {
        return problems(type, type, name);
    }

    private static List<String> problems(Class<?> beanType, Class<?> declaring, String name) {
        Method method = method(declaring, name);
        Idempotent idempotent = AnnotatedElementUtils.findMergedAnnotation(method, Idempotent.class);
        return MethodSettings.problems(idempotent, method, beanType);
    }

    private static void assertAccepted(Class<?> type, String name, Object... arguments) {
        assertThat(problems(type, name)).isEmpty();
        Method method = method(type, name);
        Object bean = org.springframework.beans.BeanUtils.instantiateClass(type);
        String key = AnnotatedElementUtils.findMergedAnnotation(method, Idempotent.class).key();
        Object value = new SpelExpressionParser().parseExpression(key).getValue(
                new MethodBasedEvaluationContext(bean, method, arguments, new DefaultParameterNameDiscoverer()));
        assertThat(value).as(key).isNotNull();
    }

    private static Method method(Class<?> type, String name) {
        return Arrays.stream(type.getDeclaredMethods()).filter(m -> m.getName().equals(name) && !m.isBridge())
                .findFirst().orElseThrow();
    }
}
