package io.onlyonce.example.gateway;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The gateway in front of the seckill instances: {@code /api/**} to them (round robin), the
 * {@code RequestDedup} window on the order and token routes, the service's access tokens verified
 * here so the window's caller is the token's subject.
 */
@SpringBootApplication
public class SeckillGatewayApplication {

    public static void main(String[] args) {
        SpringApplication.run(SeckillGatewayApplication.class, args);
    }
}
