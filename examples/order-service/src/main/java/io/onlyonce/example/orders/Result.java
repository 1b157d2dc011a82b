package io.onlyonce.example.orders;

import org.jspecify.annotations.Nullable;

/**
 * The "unified result" every answer is wrapped in, as yudao's {@code CommonResult} and RuoYi's
 * {@code AjaxResult}: code 0 and the data on success, an error code otherwise.
 *
 * @param code 0 on success
 * @param msg a message
 * @param data the answer
 */
public record Result(int code, String msg, @Nullable Object data) {

    static Result ok(@Nullable Object data) {
        return new Result(0, "ok", data);
    }
}
