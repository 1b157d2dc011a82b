package io.onlyonce.example.seckill.payment;

import io.onlyonce.example.seckill.db.Retries;
import io.onlyonce.example.seckill.order.OrderStatus;
import io.onlyonce.example.seckill.web.ApiException;
import io.onlyonce.example.seckill.web.AppProblem;
import io.onlyonce.example.seckill.web.InvalidFieldsException;
import jakarta.validation.Validator;
import org.jspecify.annotations.Nullable;
import org.springframework.validation.BeanPropertyBindingResult;
import org.springframework.validation.beanvalidation.SpringValidatorAdapter;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code POST /api/payments/callback}: the payment platform's notification, outside the JWT (the
 * platform signs the body instead: {@code X-Signature}, else 401). Answers 200
 * {@code {"result":"SUCCESS",...}} to the first and to every repeated delivery of a payment (so the
 * platform stops resending), with {@code outcome} PAID for the payment that paid the order and
 * REFUND for a further, distinct payment of a paid order or any payment of a cancelled one (recorded
 * in {@code refunds} once: a platform told anything but success would resend it for ever); 400 when
 * the amount differs, 404 for an unknown order, 409 when the trade number was notified for another order.
 */
@RestController
public class PaymentCallbackController {

    private final PaymentSignature signature;
    private final PaymentService payments;
    private final JsonMapper json;
    private final SpringValidatorAdapter validator;

    public PaymentCallbackController(PaymentSignature signature, PaymentService payments, JsonMapper json,
            Validator validator) {
        this.signature = signature;
        this.payments = payments;
        this.json = json;
        this.validator = new SpringValidatorAdapter(validator);
    }

    /**
     * The acknowledgement.
     *
     * @param result always {@code SUCCESS}: the notice was received and recorded, do not resend it
     * @param orderNo the order
     * @param status its status now
     * @param outcome what became of this payment: {@code PAID} (it paid the order) or {@code REFUND}
     *     (a further payment of a paid order, or a payment of a cancelled one, recorded to be refunded)
     * @param duplicate whether this payment had been notified before (nothing changed)
     */
    public record Acknowledgement(String result, String orderNo, OrderStatus status, PaymentService.Outcome outcome,
            boolean duplicate) {
    }

    @PostMapping("/api/payments/callback")
    public Acknowledgement callback(@RequestHeader(name = PaymentSignature.HEADER, required = false) @Nullable String signed,
            @RequestBody(required = false) byte @Nullable [] body) {
        byte[] raw = body == null ? new byte[0] : body;
        if (!signature.verify(raw, signed)) {
            throw new ApiException(AppProblem.SIGNATURE_INVALID);
        }
        PaymentNotice notice = parse(raw);
        PaymentService.Handled handled = Retries.transientFailures(() -> payments.handle(notice));
        return new Acknowledgement("SUCCESS", handled.order().orderNo(), handled.order().status(), handled.outcome(),
                handled.result() == PaymentService.Result.REPEATED);
    }

    private PaymentNotice parse(byte[] raw) {
        PaymentNotice notice;
        try {
            notice = json.readValue(raw, PaymentNotice.class);
        } catch (JacksonException e) {
            throw new ApiException(AppProblem.MALFORMED_REQUEST);
        }
        if (notice == null) {
            throw new ApiException(AppProblem.MALFORMED_REQUEST);
        }
        BeanPropertyBindingResult errors = new BeanPropertyBindingResult(notice, "paymentNotice");
        validator.validate(notice, errors);
        if (errors.hasErrors()) {
            throw new InvalidFieldsException(errors);
        }
        return notice;
    }
}
