import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * The service behind the gateway in the gateway bench: drains the body and answers 201 with a small
 * JSON body, on Reactor Netty (the JDK's own HTTP server tops out far below the gateway). Run as a
 * single source file on the gateway's classpath:
 * {@code java -cp <classpath> bench/gateway/Downstream.java <port>}.
 */
public final class Downstream {

    public static void main(String[] args) {
        DisposableServer server = HttpServer.create().host("127.0.0.1").port(Integer.parseInt(args[0]))
                .handle((request, response) -> request.receive().aggregate().asString().defaultIfEmpty("")
                        .flatMap(body -> response.status(201).header("Content-Type", "application/json")
                                .sendString(Mono.just("{\"ok\":true}")).then()))
                .bindNow();
        server.onDispose().block();
    }
}
