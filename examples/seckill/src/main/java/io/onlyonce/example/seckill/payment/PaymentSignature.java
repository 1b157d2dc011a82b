package io.onlyonce.example.seckill.payment;

import io.onlyonce.example.seckill.SeckillProperties;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Locale;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * The payment platform's signature: {@code X-Signature} = lower-case hex of HMAC-SHA256 over the
 * raw request body with {@code seckill.payment.secret}, compared in constant time.
 */
@Component
public class PaymentSignature {

    public static final String HEADER = "X-Signature";

    private final SecretKeySpec key;

    public PaymentSignature(SeckillProperties properties) {
        this.key = new SecretKeySpec(properties.payment().secret().getBytes(StandardCharsets.UTF_8), "HmacSHA256");
    }

    /** The signature of {@code body}. */
    public String sign(byte[] body) {
        return HexFormat.of().formatHex(mac(body));
    }

    public boolean verify(byte[] body, @Nullable String signature) {
        if (signature == null || signature.length() != 64) {
            return false;
        }
        byte[] presented;
        try {
            presented = HexFormat.of().parseHex(signature.toLowerCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return false;
        }
        return MessageDigest.isEqual(mac(body), presented);
    }

    private byte[] mac(byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is required by every Java platform", e);
        }
    }
}
