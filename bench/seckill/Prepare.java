import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Prepares the purchases of the flash-sale load bench outside its measured phase. The users are
 * rows the bench inserted into the service's {@code users} table (a file of {@code <id> <username>}
 * lines); for each, this signs the access token {@code POST /api/login} would issue (HS256 with the
 * run's {@code SECKILL_JWT_SECRET}: {@code iss}, {@code sub}, {@code uid}, {@code iat}, {@code exp},
 * as {@code auth.AccessTokens} does) and asks the service for a one-time token,
 * {@code POST /api/seckill/activities/{activityId}/tokens}. Writes one line per user,
 * {@code <accessToken> <one-time token>}, for bench/seckill/load.lua to send once.
 *
 * <pre>java bench/seckill/Prepare.java &lt;baseUrl&gt; &lt;activityId&gt; &lt;jwtSecret&gt; &lt;issuer&gt; &lt;usersFile&gt; &lt;parallelism&gt; &lt;outFile&gt;</pre>
 *
 * Run as a source file (JDK 11+), so the bench needs no build of its own.
 */
public final class Prepare {

    private static final Pattern TOKEN = Pattern.compile("\"token\"\\s*:\\s*\"([^\"]+)\"");
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

    public static void main(String[] args) throws Exception {
        if (args.length != 7) {
            System.err.println("usage: Prepare <baseUrl> <activityId> <jwtSecret> <issuer> <usersFile> <parallelism> <outFile>");
            System.exit(2);
        }
        String base = args[0];
        long activity = Long.parseLong(args[1]);
        byte[] secret = args[2].getBytes(StandardCharsets.UTF_8);
        String issuer = args[3];
        List<String> users = Files.readAllLines(Path.of(args[4]));
        int parallelism = Integer.parseInt(args[5]);
        Path out = Path.of(args[6]);
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        ExecutorService pool = Executors.newFixedThreadPool(parallelism);
        long start = System.nanoTime();
        long now = System.currentTimeMillis() / 1000;
        List<Future<String>> lines = new ArrayList<>(users.size());
        for (String user : users) {
            String[] idAndName = user.strip().split("\\s+");
            String jwt = jwt(secret, issuer, Long.parseLong(idAndName[0]), idAndName[1], now);
            lines.add(pool.submit(() -> jwt + " " + token(client, base, activity, jwt)));
        }
        StringBuilder text = new StringBuilder(users.size() * 400);
        try {
            for (Future<String> line : lines) {
                text.append(line.get()).append('\n');
            }
        } catch (ExecutionException e) {
            System.err.println("preparing failed: " + e.getCause());
            System.exit(1);
        } finally {
            pool.shutdownNow();
        }
        Files.writeString(out, text, StandardCharsets.US_ASCII);
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("prepared %,d access and one-time tokens in %.1f s (%,.0f/s)%n", users.size(), seconds,
                users.size() / seconds);
    }

    /** The compact HS256 JWT the service's login would issue for this user, valid for two hours. */
    static String jwt(byte[] secret, String issuer, long uid, String username, long now) throws Exception {
        String header = B64.encodeToString("{\"alg\":\"HS256\"}".getBytes(StandardCharsets.UTF_8));
        String claims = B64.encodeToString(String.format(
                "{\"iss\":\"%s\",\"sub\":\"%s\",\"uid\":%d,\"iat\":%d,\"exp\":%d}",
                issuer, username, uid, now, now + 7200).getBytes(StandardCharsets.UTF_8));
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret, "HmacSHA256"));
        String signature = B64.encodeToString(mac.doFinal((header + "." + claims).getBytes(StandardCharsets.US_ASCII)));
        return header + "." + claims + "." + signature;
    }

    private static String token(HttpClient client, String base, long activity, String jwt) {
        return extract(TOKEN, send(client, HttpRequest.newBuilder(
                URI.create(base + "/api/seckill/activities/" + activity + "/tokens"))
                .header("Authorization", "Bearer " + jwt)
                .POST(HttpRequest.BodyPublishers.noBody()), 201));
    }

    /** Sends the request, retrying a few times on a connection failure or an unexpected status (a 503 from an overloaded Redis). */
    private static String send(HttpClient client, HttpRequest.Builder request, int expected) {
        String last = "";
        for (int attempt = 0; attempt < 5; attempt++) {
            try {
                HttpResponse<String> response = client.send(request.timeout(Duration.ofSeconds(30)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == expected) {
                    return response.body();
                }
                last = response.statusCode() + " " + response.body();
            } catch (IOException e) {
                last = e.toString();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            // a 429 is the request window (1 s) remembering an attempt that failed late: wait it out
            sleep(last.startsWith("429") ? 1_200L : 200L * (attempt + 1));
        }
        throw new UncheckedIOException(new IOException(request.build().uri() + " failed: " + last));
    }

    private static String extract(Pattern pattern, String body) {
        Matcher m = pattern.matcher(body);
        if (!m.find()) {
            throw new IllegalStateException("unexpected answer: " + body);
        }
        return m.group(1);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
