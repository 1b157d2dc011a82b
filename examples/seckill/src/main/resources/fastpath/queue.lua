-- The state of a sale's queue, read only: its length (reservations queued or being written), how
-- many of them a consumer has taken and not settled yet, and the age of the oldest in milliseconds on
-- the Redis server's clock (0 when the queue is empty; a stream id starts with the time it was added).
-- KEYS: queue; ARGV: group
-- Returns {length, pending, age}.
local length = redis.call('XLEN', KEYS[1])
local pending = 0
local ok, summary = pcall(redis.call, 'XPENDING', KEYS[1], ARGV[1])
if ok and type(summary) == 'table' then
  pending = summary[1]
end
local age = 0
if length > 0 then
  local first = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)
  if first[1] then
    local added = tonumber(string.match(first[1][1], '^(%d+)'))
    local now = redis.call('TIME')
    age = math.max(0, tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) - added)
  end
end
return {length, pending, age}
