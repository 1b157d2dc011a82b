package io.onlyonce.example.seckill.demo;

import io.onlyonce.example.seckill.auth.CurrentUser;
import io.onlyonce.example.seckill.order.Order;
import io.onlyonce.example.seckill.order.OrderService;
import io.onlyonce.example.seckill.payment.PaymentCallbackController;
import io.onlyonce.example.seckill.payment.PaymentSignature;
import io.onlyonce.example.seckill.seckill.ActivityController;
import io.onlyonce.example.seckill.seckill.DemoSale;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The demo mode's shortcuts, for logged-in users; outside demo mode the addresses do not exist (404).
 * <ul>
 *   <li>{@code GET /api/demo} answers {@code {"demo": true}}: the web page offers "simulate payment"
 *       only then.</li>
 *   <li>{@code POST /api/demo/flash-sale/restock} reopens the demo flash sale (activity 1), fills its
 *       stock up again, and answers the sale as {@code GET /api/seckill/activities/1} shows it.</li>
 *   <li>{@code POST /api/demo/orders/{orderNo}/pay} plays the payment platform for one of the
 *       caller's own orders (another user's is 404, as for an unknown one): it signs the notice
 *       {@code {outTradeNo, amount, tradeNo: "DEMO-<orderNo>"}} as the platform does and hands it to
 *       the payment callback, whose answer it returns. The trade number is fixed per order, so paying
 *       again is the platform notifying the same payment again ({@code duplicate: true}).</li>
 * </ul>
 */
@RestController
@ConditionalOnBooleanProperty("seckill.demo.enabled")
public class DemoController {

    private final DemoSale sale;
    private final ActivityController activities;
    private final OrderService orders;
    private final PaymentSignature signature;
    private final PaymentCallbackController callback;

    public DemoController(DemoSale sale, ActivityController activities, OrderService orders, PaymentSignature signature,
            PaymentCallbackController callback) {
        this.sale = sale;
        this.activities = activities;
        this.orders = orders;
        this.signature = signature;
        this.callback = callback;
    }

    @GetMapping("/api/demo")
    public Map<String, Boolean> demo() {
        return Map.of("demo", true);
    }

    @PostMapping("/api/demo/flash-sale/restock")
    public ActivityController.ActivityView restock() {
        sale.reopenAndRestock();
        return activities.get(DemoSale.ACTIVITY_ID);
    }

    @PostMapping("/api/demo/orders/{orderNo}/pay")
    public PaymentCallbackController.Acknowledgement pay(@PathVariable String orderNo, @AuthenticationPrincipal Jwt jwt) {
        Order order = orders.get(CurrentUser.of(jwt), orderNo);
        // the order number comes from the database (a TSID) and the amount is a plain decimal: no escaping needed
        String notice = "{\"outTradeNo\":\"" + order.orderNo() + "\",\"amount\":" + order.amount().toPlainString()
                + ",\"tradeNo\":\"DEMO-" + order.orderNo() + "\"}";
        byte[] body = notice.getBytes(StandardCharsets.UTF_8);
        PaymentCallbackController.Acknowledgement paid = callback.callback(signature.sign(body), body);
        if (paid.status() == io.onlyonce.example.seckill.order.OrderStatus.CANCELLED) {
            // the platform is told SUCCESS (the payment is recorded for a refund); the buyer is told why nothing was paid
            throw io.onlyonce.example.seckill.web.ApiException.aboutOrder(io.onlyonce.example.seckill.web.AppProblem.ORDER_CANCELLED,
                    order.orderNo());
        }
        return paid;
    }
}
