package io.onlyonce.example.seckill.support;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/** Runs tasks on a fixed number of threads, all released at once; results in task order. */
public final class Concurrently {

    private Concurrently() {
    }

    public static <T> List<T> run(int threads, List<? extends Callable<T>> tasks) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (Callable<T> task : tasks) {
                futures.add(pool.submit(() -> {
                    start.await();
                    return task.call();
                }));
            }
            start.countDown();
            List<T> results = new ArrayList<>();
            for (Future<T> future : futures) {
                results.add(future.get(120, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    /** {@code copies} runs of the same task. */
    public static <T> List<T> times(int copies, Callable<T> task) throws Exception {
        List<Callable<T>> tasks = new ArrayList<>();
        for (int i = 0; i < copies; i++) {
            tasks.add(task);
        }
        return run(copies, tasks);
    }

    /** {@code function} applied to every input on {@code threads} threads. */
    public static <I, T> List<T> map(int threads, List<I> inputs, Function<I, T> function) throws Exception {
        List<Callable<T>> tasks = new ArrayList<>();
        for (I input : inputs) {
            tasks.add(() -> function.apply(input));
        }
        return run(threads, tasks);
    }
}
