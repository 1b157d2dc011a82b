package io.onlyonce.example.seckill.fastpath;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.example.seckill.support.Redis;
import io.onlyonce.example.seckill.support.ServiceProcess;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * On MariaDB, a web instance that only decides purchases ({@code seckill.fast-path.consumers=0}):
 * its reservations wait in the queue until, half the stock reserved, a worker instance of the same
 * service (consumers on) is started on the same database and Redis and writes them, while the
 * purchases go on. The queue's SQL on MariaDB ({@code INSERT IGNORE}, {@code IN} lists) and an
 * instance without consumers, under the same invariants.
 */
class FastPathWebAndWorkerOnMariaDbIT extends AbstractFastPathScenario {

    private ServiceProcess worker;

    @Override
    protected int redisPort() {
        return Redis.sharedPort();
    }

    @Override
    protected boolean onMariaDb() {
        return true;
    }

    @Override
    protected List<String> moreArguments() {
        return List.of("--seckill.fast-path.consumers=0");
    }

    @Override
    protected void disrupt(ServiceProcess service) throws Exception {
        List<String> arguments = new ArrayList<>(arguments());
        // half the stock reserved, and nothing written: the web instance has no consumers
        try (Connection db = DriverManager.getConnection(argument(arguments, "--spring.datasource.url="),
                argument(arguments, "--spring.datasource.username="), argument(arguments, "--spring.datasource.password="))) {
            assertThat(count(db, "SELECT COUNT(*) FROM orders")).isZero();
            assertThat(count(db, "SELECT COUNT(*) FROM seckill_reservations")).isZero();
        }
        arguments.remove("--seckill.fast-path.consumers=0");
        worker = ServiceProcess.of(name() + "-worker", arguments, Map.of());
        worker.start();
    }

    private static String argument(List<String> arguments, String prefix) {
        return arguments.stream().filter(a -> a.startsWith(prefix)).findFirst().orElseThrow().substring(prefix.length());
    }

    @Override
    protected void afterService() throws InterruptedException {
        if (worker != null) {
            worker.close();
            worker = null;
        }
    }

    @Override
    protected double scale() {
        return 0.4;
    }

    @Override
    protected String name() {
        return "fast-path-web-and-worker-mariadb";
    }
}
