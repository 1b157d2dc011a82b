package io.onlyonce.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.spring.Idempotent;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import io.onlyonce.spring.method.IdempotentAdvisingPostProcessor;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyEmitter;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Service;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code @Idempotent} where the proxy cannot reach it, or with no proxy at all, fails start-up
 * with a message that names the method, instead of leaving the method silently unprotected.
 */
class IdempotentStartupValidationTest {

    private final WebApplicationContextRunner web = new WebApplicationContextRunner()
            .withConfiguration(OnlyOnceAutoConfigurationTest.ONLYONCE)
            .withPropertyValues(OnlyOnceAutoConfigurationTest.SECRET);

    @RestController
    static class GoodController {
        @PostMapping("/good")
        @Idempotent
        public String create() {
            return "ok";
        }

        @PostMapping("/plain")
        public String plain() {
            return "plain";
        }
    }

    @RestController
    static class PrivateMethodController {
        @PostMapping("/private")
        @Idempotent
        private String createPrivately() {
            return "never protected";
        }
    }

    @RestController
    static class PackagePrivateController {
        @PostMapping("/package-private")
        @Idempotent
        String createInPackage() {
            return "protected by the class proxy";
        }

        @PostMapping("/protected")
        @Idempotent
        protected String createProtected() {
            return "protected by the class proxy";
        }
    }

    interface Orders {
        String create();
    }

    @Service
    static class InterfaceProxiedService implements Orders {
        @Override
        @org.springframework.transaction.annotation.Transactional
        public String create() {
            return placeQuietly();
        }

        @Idempotent(key = "'k'")
        String placeQuietly() {
            return "an interface proxy never sees this method";
        }
    }

    @RestController
    static class FinalMethodController {
        @PostMapping("/final")
        @Idempotent
        public final String createFinally() {
            return "never protected";
        }
    }

    @RestController
    static final class FinalController {
        @PostMapping("/final-class")
        @Idempotent
        public String createInFinalClass() {
            return "never protected";
        }
    }

    @RestController
    static class StaticMethodController {
        @PostMapping("/static")
        @Idempotent
        public static String createStatically() {
            return "never protected";
        }
    }

    @RestController
    static class AsyncController {
        @PostMapping("/async")
        @Idempotent
        public CompletableFuture<String> createLater() {
            return CompletableFuture.completedFuture("written after the filter returned");
        }

        @PostMapping("/deferred")
        @Idempotent
        public ResponseEntity<DeferredResult<String>> createDeferred() {
            return ResponseEntity.ok(new DeferredResult<>());
        }
    }

    @Service
    static class OrderService {
        @Idempotent
        public String placeOrder() {
            return "not a handler";
        }
    }

    @Test
    void aPublicMethodOfAControllerIsProxiedWithTheAdvisor() {
        web.withBean(GoodController.class).run(context -> {
            assertThat(context).hasNotFailed();
            GoodController controller = context.getBean(GoodController.class);
            assertThat(AopUtils.isAopProxy(controller)).isTrue();
            assertThat(((Advised) controller).getAdvisors()).contains(context.getBean(IdempotentAdvisingPostProcessor.class).advisor());
        });
    }

    @RestController
    static class UnknownScopeVariableController {
        @PostMapping("/activities/{activityId}/orders")
        @Idempotent(strategy = Idempotent.Strategy.TOKEN, scope = "activity:{activity}")
        public String buy() {
            return "ok";
        }
    }

    @Test
    void aTokenScopePlaceholderThatIsNoPathVariableFailsStartUp() {
        web.withBean(UnknownScopeVariableController.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining(
                    "UnknownScopeVariableController.buy has token scope placeholder {activity}, which is not a path variable");
        });
    }

    /** An API interface as OpenAPI generators write them, carrying the mapping and the annotation. */
    interface OrdersApi {
        @PostMapping("/api-orders")
        @Idempotent
        String create();
    }

    @RestController
    static class InterfaceAnnotatedController implements OrdersApi {
        @Override
        public String create() {
            return "ok";
        }
    }

    @Test
    void anAnnotationOnTheImplementedInterfaceMethodIsApplied() {
        web.withBean(InterfaceAnnotatedController.class).run(context -> {
            assertThat(context).hasNotFailed();
            Object controller = context.getBean(InterfaceAnnotatedController.class);
            assertThat(AopUtils.isAopProxy(controller)).isTrue();
            assertThat(((Advised) controller).getAdvisors()).contains(context.getBean(IdempotentAdvisingPostProcessor.class).advisor());
            assertThat(AopUtils.canApply(context.getBean(IdempotentAdvisingPostProcessor.class).advisor(),
                    InterfaceAnnotatedController.class)).isTrue();
        });
    }

    @Test
    void aPrivateMethodFailsStartUp() {
        web.withBean(PrivateMethodController.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("PrivateMethodController.createPrivately is private");
        });
    }

    @Test
    void packagePrivateAndProtectedMethodsOfAClassProxyAreAdvised() {
        web.withBean(PackagePrivateController.class).run(context -> {
            assertThat(context).hasNotFailed();
            PackagePrivateController controller = context.getBean(PackagePrivateController.class);
            assertThat(AopUtils.isCglibProxy(controller)).isTrue();
            assertThat(((Advised) controller).getAdvisors()).contains(context.getBean(IdempotentAdvisingPostProcessor.class).advisor());
        });
    }

    @Test
    void aMethodThatIsNotPublicOnAnInterfaceProxyFailsStartUp() {
        // another advisor (transactions) has made an interface proxy before OnlyOnce's is added to it
        web.withPropertyValues("spring.aop.proxy-target-class=false").withBean(InterfaceProxiedService.class)
                .withBean(org.springframework.transaction.PlatformTransactionManager.class,
                        IdempotentStartupValidationTest::noopTransactions)
                .withUserConfiguration(TxLast.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .hasStackTraceContaining("@Idempotent methods [InterfaceProxiedService.placeQuietly] of bean")
                            .hasStackTraceContaining("are not public, and the bean is not proxied through its class");
                });
    }

    @Test
    void withoutAnotherAdvisorOnlyOncesOwnProxyIsAClassProxyThatReachesNonPublicMethods() {
        web.withPropertyValues("spring.aop.proxy-target-class=false").withBean(InterfaceProxiedService.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(AopUtils.isCglibProxy(context.getBean(InterfaceProxiedService.class))).isTrue();
                });
    }

    @Test
    void aFinalMethodFailsStartUp() {
        web.withBean(FinalMethodController.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("FinalMethodController.createFinally is final");
        });
    }

    @Test
    void aFinalClassFailsStartUp() {
        web.withBean(FinalController.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("FinalController.createInFinalClass is in a final class");
        });
    }

    @Test
    void aStaticMethodFailsStartUp() {
        web.withBean(StaticMethodController.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("StaticMethodController.createStatically is static");
        });
    }

    @Test
    void asynchronousSingleAnswersAreAccepted() {
        web.withBean(AsyncController.class).run(context -> assertThat(context).hasNotFailed());
    }

    @RestController
    static class StreamingController {
        @PostMapping("/emitter")
        @Idempotent
        public ResponseEntity<ResponseBodyEmitter> emit() {
            return ResponseEntity.ok(new ResponseBodyEmitter());
        }

        @PostMapping("/streaming")
        @Idempotent
        public StreamingResponseBody stream() {
            return out -> out.write(1);
        }
    }

    @Test
    void aStreamedAnswerFailsStartUp() {
        web.withBean(StreamingController.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .hasStackTraceContaining("StreamingController.emit streams its answer (ResponseBodyEmitter)")
                    .hasStackTraceContaining("StreamingController.stream streams its answer (StreamingResponseBody)");
        });
    }

    @RestController
    static class TypoController {
        @PostMapping("/retention")
        @Idempotent(retention = "24 hours")
        public String badRetention() {
            return "ok";
        }

        @PostMapping("/lease")
        @Idempotent(lease = "-5s")
        public String badLease() {
            return "ok";
        }

        @PostMapping("/key")
        @Idempotent(key = "#request.(")
        public String badKey(String request) {
            return "ok";
        }
    }

    @Test
    void anUnparsableRetentionLeaseOrKeyFailsStartUpInsteadOfEveryRequest() {
        web.withBean(TypoController.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .hasStackTraceContaining("TypoController.badRetention: retention '24 hours' is not a duration")
                    .hasStackTraceContaining("TypoController.badLease: lease '-5s' must be at least one millisecond")
                    .hasStackTraceContaining("TypoController.badKey: key '#request.(' is not a SpEL expression");
        });
    }

    /**
     * A purchase as a client sends it.
     *
     * @param businessId the client's id of this purchase intent
     * @param customer who buys
     */
    record Purchase(String businessId, Customer customer) {
    }

    /**
     * A customer.
     *
     * @param id the customer's number
     */
    record Customer(String id) {
    }

    /** A command written as a JavaBean, with getters. */
    public static class ShipCommand {
        private Customer customer;

        public Customer getCustomer() {
            return customer;
        }

        public void setCustomer(Customer customer) {
            this.customer = customer;
        }
    }

    @RestController
    static class KeyTypoController {
        @PostMapping("/unknown-variable")
        @Idempotent(key = "#reqest.businessId")
        public String unknownVariable(@org.springframework.web.bind.annotation.RequestBody Purchase request) {
            return "ok";
        }

        @PostMapping("/unknown-record-property")
        @Idempotent(key = "#r.bussinessId")
        public String unknownRecordProperty(@org.springframework.web.bind.annotation.RequestBody Purchase r) {
            return "ok";
        }

        @PostMapping("/missing-hash")
        @Idempotent(key = "request.businessId")
        public String missingHash(@org.springframework.web.bind.annotation.RequestBody Purchase request) {
            return "ok";
        }
    }

    @Test
    void aKeyExpressionWithAnUnknownVariableOrPropertyFailsStartUpInsteadOfEveryRequest() {
        web.withBean(KeyTypoController.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .hasStackTraceContaining("KeyTypoController.unknownVariable: key '#reqest.businessId' uses"
                            + " #reqest, which is not a variable of the method (available: #request, #p0, #a0, #root,"
                            + " #this); did you mean #request?")
                    .hasStackTraceContaining("KeyTypoController.unknownRecordProperty: key '#r.bussinessId' reads"
                            + " 'bussinessId' of #r, but Purchase has no such property (businessId, customer);"
                            + " did you mean businessId?")
                    .hasStackTraceContaining("KeyTypoController.missingHash: key 'request.businessId' reads"
                            + " 'request' of the bean (#root), but KeyTypoController has no such property;"
                            + " did you mean #request?");
        });
    }

    @Service
    static class KeyTypoService {
        @Idempotent(key = "#command.custommer.id")
        public String ship(ShipCommand command) {
            return "shipped";
        }
    }

    @Test
    void anUnknownPropertyOfAJavaBeanParameterFailsStartUp() {
        web.withBean(KeyTypoService.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .hasStackTraceContaining("KeyTypoService.ship: key '#command.custommer.id' reads 'custommer'"
                            + " of #command, but ShipCommand has no such property (customer); did you mean customer?");
        });
    }

    @Service
    static class WellKeyedService {
        @Idempotent(key = "#p0.businessId + ':' + #a0.customer.id")
        public String byAlias(Purchase purchase) {
            return "ok";
        }

        @Idempotent(key = "#command.customer.id")
        public String nested(ShipCommand command) {
            return "ok";
        }

        @Idempotent(key = "#body['orderId']")
        public String byMapEntry(java.util.Map<String, Object> body) {
            return "ok";
        }

        @Idempotent(key = "#event.orderNo")
        public String byInterface(CharSequence event) {
            return "ok";
        }

        @Idempotent(key = "#payload.orderNo")
        public <T> String byTypeVariable(T payload) {
            return "ok";
        }

        @Idempotent(key = "#orderNo.trim().toUpperCase() + #root.hashCode()")
        public String byMethods(String orderNo) {
            return "ok";
        }
    }

    /** A handler contract written once for every payload type. */
    interface PurchaseHandler<T> {
        @Idempotent(key = "#payload.businessId")
        String handle(T payload);
    }

    @Service
    static class PurchaseHandlerService implements PurchaseHandler<Purchase> {
        @Override
        public String handle(Purchase payload) {
            return payload.businessId();
        }
    }

    @Test
    void validKeyExpressionsAndTypesThatCannotBeKnownAreAccepted() {
        web.withBean(WellKeyedService.class).run(context -> assertThat(context).hasNotFailed());
        web.withBean(PurchaseHandlerService.class).run(context -> {
            assertThat(context).as("a generic contract and its bridge method").hasNotFailed();
            assertThat(context.getBean(PurchaseHandlerService.class).handle(new Purchase("b-1", null))).isEqualTo("b-1");
        });
    }

    @RestController
    static class TokenController {
        @PostMapping("/buy")
        @Idempotent(strategy = Idempotent.Strategy.TOKEN)
        public String buy() {
            return "ok";
        }
    }

    @Test
    void aTokenMethodWithTokensDisabledFailsStartUp() {
        web.withBean(TokenController.class).withPropertyValues("onlyonce.token.enabled=false").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining(
                    "TokenController.buy uses the TOKEN strategy, but one-time tokens are disabled");
        });
    }

    @Test
    void idempotentHandlersInAnApplicationThatIsNotAWebOneFailStartUp() {
        new ApplicationContextRunner().withConfiguration(OnlyOnceAutoConfigurationTest.ONLYONCE)
                .withPropertyValues(OnlyOnceAutoConfigurationTest.SECRET)
                .withBean(GoodController.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).hasStackTraceContaining(
                            "@Idempotent on a web handler needs a Spring MVC (servlet) or WebFlux (reactive) web application");
                });
        new ApplicationContextRunner().withConfiguration(OnlyOnceAutoConfigurationTest.ONLYONCE)
                .withPropertyValues(OnlyOnceAutoConfigurationTest.SECRET)
                .run(context -> assertThat(context).as("no @Idempotent, nothing to refuse").hasNotFailed());
    }

    @Test
    void aMethodOfAnotherBeanWithoutAKeyExpressionFailsStartUp() {
        web.withBean(OrderService.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining(
                    "OrderService.placeOrder is not a web handler, so its key must come from its arguments");
        });
    }

    @Service
    static class ReceiptService {
        final java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();

        @Idempotent(key = "#orderNo")
        public java.util.List<String> receipt(String orderNo) {
            return java.util.List.of(orderNo, "run " + runs.incrementAndGet());
        }

        @Idempotent(strategy = Idempotent.Strategy.TOKEN, key = "#orderNo")
        public String byToken(String orderNo) {
            return orderNo;
        }

        @Idempotent(key = "#orderNo")
        public CompletableFuture<String> later(String orderNo) {
            return CompletableFuture.completedFuture(orderNo);
        }
    }

    @Service
    static class GoodService {
        private final java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();

        public int runs() {
            return runs.get();
        }

        @Idempotent(key = "#orderNo")
        public java.util.List<String> receipt(String orderNo) {
            return java.util.List.of(orderNo, "run " + runs.incrementAndGet());
        }
    }

    @Test
    void aServiceMethodWithTheTokenStrategyOrAFutureFailsStartUp() {
        web.withBean(ReceiptService.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .hasStackTraceContaining("ReceiptService.byToken uses the TOKEN strategy, which only web handlers can")
                    .hasStackTraceContaining("ReceiptService.later returns CompletableFuture");
        });
    }

    @Test
    void aServiceMethodIsIdempotentInAnApplicationWithoutTheWeb() {
        new ApplicationContextRunner().withConfiguration(OnlyOnceAutoConfigurationTest.ONLYONCE)
                .withPropertyValues(OnlyOnceAutoConfigurationTest.SECRET)
                .withBean(GoodService.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    GoodService service = context.getBean(GoodService.class);
                    assertThat(service.receipt("o-1")).containsExactly("o-1", "run 1");
                    assertThat(service.receipt("o-1")).as("the stored result, deserialised").containsExactly("o-1", "run 1");
                    assertThat(service.receipt("o-2")).containsExactly("o-2", "run 2");
                    assertThat(service.runs()).isEqualTo(2);
                });
    }

    @Test
    void withoutAutoProxyingTheMethodsAreStillProtected() {
        web.withBean(GoodController.class).withPropertyValues("spring.aop.auto=false").run(context -> {
            assertThat(context).hasNotFailed();
            GoodController controller = context.getBean(GoodController.class);
            assertThat(AopUtils.isAopProxy(controller)).isTrue();
            assertThat(((Advised) controller).getAdvisors())
                    .containsExactly(context.getBean(IdempotentAdvisingPostProcessor.class).advisor());
        });
    }

    /** A service whose method is both transactional and idempotent, on a proxy with the transaction advisor. */
    static class TransactionalService {
        @Idempotent(key = "#id")
        @org.springframework.transaction.annotation.Transactional
        public String pay(String id) {
            return id;
        }
    }

    @Test
    void onlyOncesAdviceIsInsideTheTransactionAdvisorWhateverItsOrder() {
        for (int order : new int[] {org.springframework.core.Ordered.HIGHEST_PRECEDENCE, 0,
                org.springframework.core.Ordered.LOWEST_PRECEDENCE}) {
            web.withBean(TransactionalService.class)
                    .withBean(org.springframework.transaction.PlatformTransactionManager.class,
                            IdempotentStartupValidationTest::noopTransactions)
                    .withUserConfiguration(order == 0 ? TxAtZero.class
                            : order < 0 ? TxFirst.class : TxLast.class)
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        Advisor[] advisors = ((Advised) context.getBean(TransactionalService.class)).getAdvisors();
                        assertThat(advisors[advisors.length - 1])
                                .as("innermost with the transaction advisor at order " + order)
                                .isSameAs(context.getBean(IdempotentAdvisingPostProcessor.class).advisor());
                        assertThat(advisors).anyMatch(a -> a.getAdvice()
                                instanceof org.springframework.transaction.interceptor.TransactionInterceptor);
                    });
        }
    }

    static org.springframework.transaction.PlatformTransactionManager noopTransactions() {
        return new org.springframework.transaction.support.AbstractPlatformTransactionManager() {
            private static final long serialVersionUID = 1L;

            @Override
            protected Object doGetTransaction() {
                return new Object();
            }

            @Override
            protected void doBegin(Object transaction, org.springframework.transaction.TransactionDefinition definition) {
            }

            @Override
            protected void doCommit(org.springframework.transaction.support.DefaultTransactionStatus status) {
            }

            @Override
            protected void doRollback(org.springframework.transaction.support.DefaultTransactionStatus status) {
            }
        };
    }

    @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
    @org.springframework.transaction.annotation.EnableTransactionManagement(order = org.springframework.core.Ordered.HIGHEST_PRECEDENCE)
    static class TxFirst {
    }

    @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
    @org.springframework.transaction.annotation.EnableTransactionManagement(order = 0)
    static class TxAtZero {
    }

    @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
    @org.springframework.transaction.annotation.EnableTransactionManagement
    static class TxLast {
    }

    @Test
    void withoutAutoProxyingAnApplicationWithoutIdempotentMethodsStillStarts() {
        web.withPropertyValues("spring.aop.auto=false").run(context -> assertThat(context).hasNotFailed());
    }
}
