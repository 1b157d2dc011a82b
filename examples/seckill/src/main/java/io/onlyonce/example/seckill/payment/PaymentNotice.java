package io.onlyonce.example.seckill.payment;

import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.PositiveOrZero;
import java.math.BigDecimal;
import org.jspecify.annotations.Nullable;

/**
 * The payment platform's notification body. Every field is required and its text fields are checked
 * for form before anything else of the request is believed, logged or stored: {@code outTradeNo} is
 * one of our order numbers (a TSID, 13 Crockford base32 characters), {@code tradeNo} 1 to 64 letters,
 * digits, '.', '_' or '-'. Neither can carry a line break into a log line or markup into a page. A
 * notice that fails is answered 400 {@code validation-failed} with one entry per field in
 * {@code errors}.
 *
 * @param outTradeNo our order number
 * @param amount the amount paid, 0 to 9999999999.99
 * @param tradeNo the platform's transaction number
 */
public record PaymentNotice(
        @NotNull @Pattern(regexp = OUT_TRADE_NO) @Nullable String outTradeNo,
        @NotNull @PositiveOrZero @DecimalMax("9999999999.99") @Nullable BigDecimal amount,
        @NotNull @Pattern(regexp = TRADE_NO) @Nullable String tradeNo) {

    /** Our order numbers: TSIDs as {@code OrderNumbers} makes them, 13 upper-case Crockford base32 characters. */
    public static final String OUT_TRADE_NO = "[0-9A-HJKMNP-TV-Z]{13}";
    /** A payment platform's transaction number. */
    public static final String TRADE_NO = "[A-Za-z0-9._-]{1,64}";
}
