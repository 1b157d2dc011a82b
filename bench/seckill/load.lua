-- wrk script of the flash-sale load bench (bench/seckill-load.sh).
--
--   wrk ... -s load.lua <url>                                    GET <url> as given (-H for headers)
--   wrk ... -s load.lua <url> -- <pairs file> <threads> <activity> <product>
--       POST /api/seckill/activities/<activity>/orders, each line "<accessToken> <one-time token>"
--       of the file sent exactly once (thread i of n sends lines i, i+n, ...); a thread that runs
--       out stops and is reported, so that no pair is ever sent twice.
--
-- done() prints one machine-readable line: RESULT requests=... seconds=... ok=... p50_ms=... p99_ms=...

local threads = {}
local counter = 0

function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

local pairs_ = nil
local static = nil
local next_ = 1
local path = nil
local body = nil

function init(args)
  if args[1] == nil then
    static = wrk.format()
    return
  end
  local n = tonumber(args[2])
  local id = tonumber(wrk.thread:get("id"))
  path = "/api/seckill/activities/" .. args[3] .. "/orders"
  body = '{"productId":' .. args[4] .. '}'
  pairs_ = {}
  local i = 0
  for line in io.lines(args[1]) do
    if i % n == id then
      local jwt, token = line:match("^(%S+) (%S+)$")
      table.insert(pairs_, { jwt, token })
    end
    i = i + 1
  end
  wrk.thread:set("exhausted", 0)
end

function request()
  if pairs_ == nil then
    return static
  end
  local pair = pairs_[next_]
  if pair == nil then
    -- out of pairs: stop, and send nothing that could buy (wrk may still send what this returns)
    wrk.thread:set("exhausted", 1)
    wrk.thread:stop()
    return wrk.format("GET", "/actuator/health")
  end
  next_ = next_ + 1
  return wrk.format("POST", path, {
    ["Authorization"] = "Bearer " .. pair[1],
    ["Idempotency-Token"] = pair[2],
    ["Content-Type"] = "application/json",
  }, body)
end

function done(summary, latency, requests)
  local exhausted = 0
  for _, thread in ipairs(threads) do
    local e = thread:get("exhausted")
    if e ~= nil and tonumber(e) == 1 then
      exhausted = exhausted + 1
    end
  end
  local errors = summary.errors
  io.write(string.format(
    "RESULT requests=%d seconds=%.3f ok=%d status_errors=%d socket_errors=%d p50_ms=%.2f p99_ms=%.2f exhausted_threads=%d\n",
    summary.requests, summary.duration / 1e6, summary.requests - errors.status,
    errors.status, errors.connect + errors.read + errors.write + errors.timeout,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, exhausted))
end
