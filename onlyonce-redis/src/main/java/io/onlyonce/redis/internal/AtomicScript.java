package io.onlyonce.redis.internal;

import io.onlyonce.redis.script.LuaScript;
import io.onlyonce.redis.script.ScriptErrorReply;

/**
 * The one script of a fused call of {@code RedisAtomicExecutor}: the user's effect, wrapped as a
 * local function of its own keys and arguments, then the library's part, which checks the request
 * window, the one-time token and the record, runs the effect, and writes only after the effect
 * answered.
 *
 * <p>KEYS: 1 the record; then the token hash when ARGV[3] is not empty; then the window when ARGV[4]
 * is not empty; then the effect's own keys. ARGV: 1 owner token and fingerprint of the new record
 * (54 bytes), 2 the retention in ms, 3 the token's 16 raw id bytes or empty, 4 the window in ms or
 * empty, 5 {@code 1} to consume the token on a decline, {@code 0} not to, 6 the deadline on Redis's
 * clock in ms (a call that runs later, its caller having given up, does nothing) or empty; then the
 * effect's own arguments.
 *
 * <p>Answers: {@code {'w', count, PTTL}} (a repeated hit of an open window, counted),
 * {@code {'t'}} or {@code {'t', record, PTTL}} (the token is not alive; the record under the call's
 * key, if any), {@code {'e', record, PTTL}} (a live record), {@code {'c', encoded response}} (the
 * effect completed and the record was written) or {@code {'d', values...}} (the effect declined).
 * Errors: {@link ScriptErrorReply#CORRUPT} with the key's index, and
 * {@link ScriptErrorReply#SCRIPT_FAILED} for the effect's failure or an answer of another shape;
 * a refusal of the server's own ({@code OOM}, {@code READONLY}, {@code NOREPLICAS},
 * {@code MASTERDOWN}) met by the effect is answered as it is, an unavailable store.
 */
public final class AtomicScript {

    /** The library's arguments before the effect's own. */
    public static final int LIBRARY_ARGS = 6;

    private static final String LIBRARY = """
            local function corrupt(index, why)
              error({err = 'ONLYONCE_CORRUPT #' .. index .. ' ' .. why})
            end
            local function read(index, command, key, field)
              local value
              if field then
                value = redis.pcall(command, key, field)
              else
                value = redis.pcall(command, key)
              end
              if type(value) == 'table' and value.err then
                if string.sub(value.err, 1, 9) == 'WRONGTYPE' then
                  corrupt(index, 'another Redis type')
                end
                error(value)
              end
              return value
            end
            local function record(found)
              local status = string.sub(found, 1, 1)
              if not (((status == 'R' or status == 'N') and #found == 55) or (status == 'D' and #found > 55)) then
                corrupt(1, 'not an idempotency record')
              end
              return redis.call('PTTL', KEYS[1])
            end
            local function wellFormed(text)
              if string.find(text, '[%z\\1-\\8\\10-\\31\\127]') then
                return false
              end
              if not string.find(text, '[\\128-\\255]') then
                return true
              end
              local i, n = 1, #text
              while i <= n do
                local c = string.byte(text, i)
                if c < 128 then
                  i = i + 1
                else
                  local length
                  if c >= 194 and c <= 223 then
                    length = 2
                  elseif c >= 224 and c <= 239 then
                    length = 3
                  elseif c >= 240 and c <= 244 then
                    length = 4
                  else
                    return false
                  end
                  if i + length - 1 > n then
                    return false
                  end
                  local b = string.byte(text, i + 1)
                  if (c == 224 and b < 160) or (c == 237 and b > 159) or (c == 240 and b < 144) or (c == 244 and b > 143) then
                    return false
                  end
                  for j = i + 1, i + length - 1 do
                    local x = string.byte(text, j)
                    if x < 128 or x > 191 then
                      return false
                    end
                  end
                  i = i + length
                end
              end
              return true
            end
            local function refuse(why)
              return redis.error_reply('ONLYONCE_EFFECT ' .. why)
            end

            -- 0. the deadline: a call Redis runs after its caller gave up on it (a paused or busy server) does nothing
            if ARGV[6] ~= '' then
              local now = redis.call('TIME')
              if tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) > tonumber(ARGV[6]) then
                return {'l'}
              end
            end

            local keyCount = 1
            local tokenIndex, windowIndex
            if ARGV[3] ~= '' then
              keyCount = keyCount + 1
              tokenIndex = keyCount
            end
            if ARGV[4] ~= '' then
              keyCount = keyCount + 1
              windowIndex = keyCount
            end
            local function openWindow()
              if windowIndex then
                redis.call('SET', KEYS[windowIndex], '1', 'PX', ARGV[4])
              end
            end

            -- 1. the request window: a repeated hit is counted and answered, nothing else happens
            if windowIndex then
              local key = KEYS[windowIndex]
              local current = read(windowIndex, 'GET', key)
              if current then
                local left = redis.call('PTTL', key)
                local count, owner = string.match(current, '^([1-9][0-9]*)(.*)$')
                if left < 0 or not count or (owner ~= '' and not string.match(owner, '^:[0-9a-f]+$')) then
                  corrupt(windowIndex, 'not a window counter with a TTL')
                end
                if owner == '' then
                  return {'w', redis.call('INCR', key), left}
                end
                local counted = tonumber(count) + 1
                redis.call('SET', key, string.format('%d', counted) .. owner, 'PX', math.max(left, 1))
                return {'w', counted, left}
              end
            end

            -- 2. the one-time token, on Redis's clock: unknown, used or expired refuses the call
            local tokenValue
            if tokenIndex then
              tokenValue = read(tokenIndex, 'HGET', KEYS[tokenIndex], ARGV[3])
              local alive = false
              if tokenValue then
                if not string.match(tokenValue, '^%-?[1-9][0-9]*$') then
                  corrupt(tokenIndex, 'not a token expiry')
                end
                local time = redis.call('TIME')
                local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
                alive = string.sub(tokenValue, 1, 1) ~= '-' and tonumber(tokenValue) > now
              end
              if not alive then
                local first = read(1, 'GET', KEYS[1])
                local left = first and record(first)
                openWindow()
                if first then
                  return {'t', first, left}
                end
                return {'t'}
              end
            end

            -- 3. the record: a live one is answered as a claim would, nothing is written
            local found = read(1, 'GET', KEYS[1])
            if found then
              local left = record(found)
              openWindow()
              return {'e', found, left}
            end

            -- 4. the effect, on its own keys and arguments; every write of the library follows it
            local effectKeys, effectArgs = {}, {}
            for i = keyCount + 1, #KEYS do
              effectKeys[#effectKeys + 1] = KEYS[i]
            end
            for i = 7, #ARGV do
              effectArgs[#effectArgs + 1] = ARGV[i]
            end
            local ok, answer = pcall(effect, effectKeys, effectArgs)
            if not ok then
              local message = answer
              if type(answer) == 'table' then
                message = answer.err or 'a Lua error'
              end
              message = tostring(message)
              -- the server, not the effect, refused: out of memory, a read-only replica, too few replicas
              local code = string.match(message, '^(%u+) ')
              if code == 'OOM' or code == 'READONLY' or code == 'NOREPLICAS' or code == 'MASTERDOWN' then
                return redis.error_reply(message)
              end
              return refuse((string.gsub(message, '%c', ' ')))
            end
            if type(answer) ~= 'table' then
              return refuse('answered a ' .. type(answer) .. ', not {\\'complete\\', ...} or {\\'decline\\', ...}')
            end
            local kind = answer[1]
            if kind == 'complete' then
              local status = tonumber(answer[2])
              if not status or status ~= math.floor(status) or status < 100 or status > 599 then
                return refuse('answered a status that is not an integer from 100 to 599')
              end
              local body = answer[3]
              if type(body) ~= 'string' then
                return refuse('answered no string body (third element)')
              end
              local headers = #answer - 3
              if headers % 2 ~= 0 then
                return refuse('answered a header name without value')
              end
              local parts = {struct.pack('>BHI4', 2, status, headers / 2)}
              for i = 4, #answer, 2 do
                local name, value = answer[i], answer[i + 1]
                if type(name) ~= 'string' or name == '' or string.find(name, "[^%w!#%$%%&'%*%+%-%.%^_`|~]") then
                  return refuse('answered a header name that is not a token')
                end
                if type(value) ~= 'string' or not wellFormed(value) then
                  return refuse('answered a header value that is not UTF-8 text without control characters')
                end
                parts[#parts + 1] = struct.pack('>I4', #name)
                parts[#parts + 1] = name
                parts[#parts + 1] = struct.pack('>I4', #value)
                parts[#parts + 1] = value
              end
              parts[#parts + 1] = body
              local encoded = table.concat(parts)
              redis.call('SET', KEYS[1], 'D' .. ARGV[1] .. encoded, 'PX', ARGV[2])
              if tokenIndex then
                redis.call('HSET', KEYS[tokenIndex], ARGV[3], '-' .. tokenValue)
              end
              openWindow()
              return {'c', encoded}
            end
            if kind == 'decline' then
              if tokenIndex and ARGV[5] == '1' then
                redis.call('HSET', KEYS[tokenIndex], ARGV[3], '-' .. tokenValue)
              end
              openWindow()
              local out = {'d'}
              for i = 2, #answer do
                out[i] = answer[i]
              end
              return out
            end
            return refuse('answered neither {\\'complete\\', ...} nor {\\'decline\\', ...}')
            """;

    private AtomicScript() {
    }

    /**
     * The fused script of an effect. The effect's source starts on the script's first line, so the
     * line numbers of its Lua errors are its own.
     *
     * @param operation a name for messages
     * @param effect the effect's Lua source, a standalone script of its own keys and arguments
     */
    public static LuaScript fuse(String operation, String effect) {
        return new LuaScript(operation, "local effect = function(KEYS, ARGV) " + effect + "\nend\n" + LIBRARY);
    }
}
