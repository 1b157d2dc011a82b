package io.onlyonce.spring.method;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.springframework.core.ResolvableType;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.Assign;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.FunctionReference;
import org.springframework.expression.spel.ast.Indexer;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.Projection;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.Selection;
import org.springframework.expression.spel.ast.VariableReference;

/**
 * Finds in a parsed key expression the mistakes that would otherwise fail every call: a variable
 * that the method does not have (a misspelt parameter, a parameter written without {@code #}), a
 * bean reference (no bean resolver is registered), and, along a chain that starts at a parameter
 * or at the bean, a property or method that the declared type does not have. A chain is checked
 * only as far as its types are {@linkplain DeclaredMembers#knownClass known}, so a type that may
 * hold more at run time than it declares is never reported. Walks SpEL's own syntax tree.
 */
final class KeyExpressionCheck {

    private static final String ROOT_SUBJECT = "the bean (#root)";

    private final String key;
    private final KeyVariables variables;
    private final ResolvableType root;
    private final DeclaredMembers members = new DeclaredMembers();
    private final Set<String> assigned = new HashSet<>();
    private final Set<String> problems = new LinkedHashSet<>();

    private KeyExpressionCheck(String key, KeyVariables variables, Class<?> beanType) {
        this.key = key;
        this.variables = variables;
        this.root = ResolvableType.forClass(beanType);
    }

    /**
     * What is wrong with {@code key}, parsed as {@code ast}, as the key of a method with
     * {@code variables} on a bean of class {@code beanType}; empty when nothing is found.
     */
    static List<String> problems(String key, SpelNode ast, KeyVariables variables, Class<?> beanType) {
        KeyExpressionCheck check = new KeyExpressionCheck(key, variables, beanType);
        forEachNode(ast, check::noteAssignment);
        check.visit(ast, true);
        return List.copyOf(check.problems);
    }

    private static void forEachNode(SpelNode node, Consumer<SpelNode> action) {
        action.accept(node);
        for (int i = 0; i < node.getChildCount(); i++) {
            forEachNode(node.getChild(i), action);
        }
    }

    /** {@code #name = value} defines {@code #name} for the rest of the evaluation. */
    private void noteAssignment(SpelNode node) {
        if (node instanceof Assign && node.getChildCount() > 0 && node.getChild(0) instanceof VariableReference target) {
            assigned.add(variableName(target));
        }
    }

    /**
     * Checks {@code node} and everything below it. {@code atRoot} tells whether the current object
     * is the bean, as everywhere but inside a projection or selection.
     */
    private void visit(SpelNode node, boolean atRoot) {
        List<SpelNode> chain = node instanceof CompoundExpression ? children(node) : List.of(node);
        checkChain(chain, atRoot);
        for (SpelNode element : chain) {
            checkReference(element);
            boolean perElement = element instanceof Projection || element instanceof Selection;
            for (SpelNode child : children(element)) {
                visit(child, atRoot && !perElement);
            }
        }
    }

    private static List<SpelNode> children(SpelNode node) {
        List<SpelNode> children = new ArrayList<>(node.getChildCount());
        for (int i = 0; i < node.getChildCount(); i++) {
            children.add(node.getChild(i));
        }
        return children;
    }

    /** Reports a variable or function the method does not have, and any bean reference. */
    private void checkReference(SpelNode node) {
        if (node instanceof BeanReference bean) {
            problems.add(quoted() + " refers to the bean @" + bean.getName()
                    + ", but a key expression has no access to beans; pass the value as an argument");
            return;
        }
        String name = node instanceof VariableReference variable ? variableName(variable)
                : node instanceof FunctionReference function ? functionName(function) : null;
        if (name == null || variables.defines(name) || assigned.contains(name)) {
            return;
        }
        problems.add(quoted() + " uses #" + name + ", which is not a variable of the method (available: "
                + String.join(", ", variables.written()) + ")" + didYouMean("#" + name, variables.written())
                + namesHint());
    }

    private String namesHint() {
        return variables.namesKnown() || variables.types().isEmpty() ? ""
                : "; the parameter names are not compiled in (javac -parameters), only #p0, #a0...";
    }

    /**
     * Follows a chain ({@code #request.customer.id}, {@code request.id}) from the declared type of
     * its head while the types are known, reporting the first member that does not exist.
     */
    private void checkChain(List<SpelNode> chain, boolean atRoot) {
        SpelNode head = chain.get(0);
        ResolvableType type = null;
        int next = 1;
        if (head instanceof VariableReference variable) {
            type = headType(variableName(variable), atRoot);
        } else if (atRoot && (head instanceof PropertyOrFieldReference || head instanceof MethodReference)) {
            type = root;
            next = 0;
        }
        for (int i = next; i < chain.size() && type != null; i++) {
            type = step(type, chain.get(i), subject(chain, i));
        }
    }

    /** The declared type of variable {@code name}; null when unknown or no variable. */
    private @Nullable ResolvableType headType(String name, boolean atRoot) {
        if (KeyVariables.ROOT.equals(name) || (KeyVariables.THIS.equals(name) && atRoot)) {
            return root;
        }
        return variables.type(name);
    }

    /** What element {@code i} of {@code chain} is read from, as written. */
    private static String subject(List<SpelNode> chain, int i) {
        if (i == 0) {
            return ROOT_SUBJECT;
        }
        StringBuilder subject = new StringBuilder(chain.get(0).toStringAST());
        for (SpelNode element : chain.subList(1, i)) {
            subject.append(element instanceof Indexer ? "" : ".").append(element.toStringAST());
        }
        return subject.toString();
    }

    /** The type {@code element} gives when applied to a value of {@code type}; null to stop checking. */
    private @Nullable ResolvableType step(ResolvableType type, SpelNode element, String subject) {
        if (element instanceof Indexer) {
            return DeclaredMembers.elementType(type);
        }
        Class<?> known = DeclaredMembers.knownClass(type);
        if (known == null) {
            return null;
        }
        if (element instanceof PropertyOrFieldReference property) {
            return property(type, known, property.getName(), subject);
        }
        if (element instanceof MethodReference method) {
            return method(type, known, method.getName(), subject);
        }
        return null;
    }

    private @Nullable ResolvableType property(ResolvableType type, Class<?> known, String name, String subject) {
        ResolvableType property = members.propertyType(type, known, name);
        if (property == null) {
            Collection<String> names = DeclaredMembers.propertyNames(known);
            problems.add(quoted() + " reads '" + name + "' of " + subject + ", but " + known.getSimpleName()
                    + " has no such property" + (names.isEmpty() ? "" : " (" + String.join(", ", names) + ")")
                    + suggestion(name, names, subject));
        }
        return property;
    }

    private @Nullable ResolvableType method(ResolvableType type, Class<?> known, String name, String subject) {
        List<Method> methods = DeclaredMembers.methods(known, name);
        if (methods.isEmpty()) {
            problems.add(quoted() + " calls " + name + "() on " + subject + ", but " + known.getSimpleName()
                    + " has no public method of that name"
                    + suggestion(name, DeclaredMembers.methodNames(known), subject));
            return null;
        }
        return DeclaredMembers.returnType(type, methods);
    }

    /** A "did you mean": on the bean, a parameter written without {@code #} first, then a member. */
    private String suggestion(String name, Collection<String> members, String subject) {
        if (ROOT_SUBJECT.equals(subject)) {
            String asVariable = didYouMean("#" + name, variables.written());
            if (!asVariable.isEmpty()) {
                return asVariable;
            }
        }
        return didYouMean(name, members);
    }

    private static String didYouMean(String name, Collection<String> candidates) {
        return NearestName.among(name, candidates).map(nearest -> "; did you mean " + nearest + "?").orElse("");
    }

    private String quoted() {
        return "key '" + key + "'";
    }

    private static String variableName(VariableReference variable) {
        return variable.toStringAST().substring(1);
    }

    private static String functionName(FunctionReference function) {
        String written = function.toStringAST();
        return written.substring(1, written.indexOf('('));
    }
}
