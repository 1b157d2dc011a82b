package io.onlyonce.example.seckill.web;

import io.onlyonce.example.seckill.auth.LoginController;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The OpenAPI document ({@code /v3/api-docs}, Swagger UI at {@code /swagger-ui.html}, both open
 * without login): the API under {@code /api}, with the bearer access token as its security scheme
 * ("Authorize" in Swagger UI takes an access token; in demo mode the {@code accessToken} of
 * {@code POST /api/login}). The
 * idempotency headers of each {@code @Idempotent} operation are added by the OnlyOnce starter and
 * described for this service by {@link OpenApiOperations}.
 */
@Configuration(proxyBeanMethods = false)
class OpenApiConfiguration {

    static final String BEARER = "bearer";

    @Bean
    OpenAPI seckillOpenApi(ObjectProvider<LoginController> login) {
        String tokens = login.getIfAvailable() != null
                ? " Authorization: Bearer <accessToken> (the accessToken of POST /api/login)."
                : " Authorization: Bearer <access token of your identity provider> (HS256, SECKILL_JWT_SECRET).";
        return new OpenAPI()
                .info(new Info().title("OnlyOnce reference flash-sale service").version("0.1.0")
                        .description("Every error is an RFC 9457 problem (application/problem+json). Send" + tokens
                                + " POST /api/orders takes an"
                                + " Idempotency-Key (a business id `u{userId}_{epochMillis}_{6 letters or digits}`);"
                                + " a flash-sale order an Idempotency-Token from POST"
                                + " /api/seckill/activities/{activityId}/tokens."))
                .components(new Components().addSecuritySchemes(BEARER,
                        new SecurityScheme().type(SecurityScheme.Type.HTTP).scheme("bearer").bearerFormat("JWT")))
                .addSecurityItem(new SecurityRequirement().addList(BEARER));
    }
}
