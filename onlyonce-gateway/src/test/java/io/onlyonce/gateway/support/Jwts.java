package io.onlyonce.gateway.support;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.nio.charset.StandardCharsets;
import java.util.Date;

/** HS256 access tokens for the tests, as the seckill service issues them. */
public final class Jwts {

    private Jwts() {
    }

    /** A token for {@code subject}, valid for ten minutes, signed with {@code secret}. */
    public static String forSubject(String secret, String subject) {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(subject)
                .expirationTime(new Date(System.currentTimeMillis() + 600_000)).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        try {
            jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
        return jwt.serialize();
    }
}
