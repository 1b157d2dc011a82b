-- POST the same small JSON body; with KEYS=unique every request carries a new Idempotency-Key
-- (claim, run, capture, complete), with KEYS=one every request carries the same one (a replay
-- after the first), with KEYS=none none (the plain endpoint).
local mode = os.getenv("KEYS") or "none"
local run = os.getenv("RUN") or tostring(os.time())
local body = '{"item":"phone","quantity":1}'
local threads = {}
local counter = 0

-- each thread's Lua state gets its own global "id"
function setup(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end

function request()
  local headers = { ["Content-Type"] = "application/json" }
  if mode == "unique" then
    counter = counter + 1
    headers["Idempotency-Key"] = run .. "-" .. (id or 0) .. "-" .. counter
  elseif mode == "one" then
    headers["Idempotency-Key"] = run .. "-replayed"
  end
  return wrk.format("POST", nil, headers, body)
end
