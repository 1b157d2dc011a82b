package io.onlyonce.example.seckill.payment;

import java.math.BigDecimal;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The payment platform's notification body. Its text fields are checked for form when the body is
 * read (a value of another form is refused, so nothing else of the request is believed, logged or
 * stored): {@code outTradeNo} is one of our order numbers (a TSID, 13 Crockford base32 characters),
 * {@code tradeNo} 1 to 64 letters, digits, '.', '_' or '-'. Neither can carry a line break into a
 * log line or markup into a page. A missing field is left to the caller ({@link #complete()}).
 *
 * @param outTradeNo our order number
 * @param amount the amount paid
 * @param tradeNo the platform's transaction number
 */
public record PaymentNotice(@Nullable String outTradeNo, @Nullable BigDecimal amount, @Nullable String tradeNo) {

    /** Our order numbers: TSIDs as {@code OrderNumbers} makes them, 13 upper-case Crockford base32 characters. */
    public static final Pattern OUT_TRADE_NO = Pattern.compile("[0-9A-HJKMNP-TV-Z]{13}");
    /** A payment platform's transaction number. */
    public static final Pattern TRADE_NO = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    public PaymentNotice {
        if (outTradeNo != null && !OUT_TRADE_NO.matcher(outTradeNo).matches()) {
            throw new IllegalArgumentException("outTradeNo is not an order number");
        }
        if (tradeNo != null && !TRADE_NO.matcher(tradeNo).matches()) {
            throw new IllegalArgumentException("tradeNo must be 1 to 64 letters, digits, '.', '_' or '-'");
        }
    }

    /** Whether every field is present (the forms were checked on construction). */
    public boolean complete() {
        return outTradeNo != null && amount != null && tradeNo != null;
    }
}
