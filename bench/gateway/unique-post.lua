-- Every request a new body (thread number and counter), so with RequestDedup on each one is the
-- first of its window and pays the Redis round trip: the cost of the filter, not of cheap 429s.
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("thread_number", threads)
end

counter = 0

request = function()
  counter = counter + 1
  local body = '{"thread":' .. tostring(thread_number) .. ',"n":' .. counter .. '}'
  return wrk.format("POST", "/bench/orders", {["Content-Type"] = "application/json"}, body)
end
