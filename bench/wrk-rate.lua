-- wrk script of bench/http-load.ts: each connection sends one request at a time on a
-- fixed schedule, `rate` requests/s per connection (wrk has no rate option; this is
-- an open-loop-ish schedule: a request due while the previous one is unanswered goes
-- out as soon as it is answered). Clock: clock_gettime through LuaJIT's ffi.
-- Usage: wrk -s bench/wrk-rate.lua URL -- RATE_PER_CONNECTION
local ffi = require("ffi")
ffi.cdef[[
  typedef struct { long tv_sec; long tv_nsec; } wrk_timespec;
  int clock_gettime(int clk_id, wrk_timespec *tp);
]]
local ts = ffi.new("wrk_timespec")
local function now_ms()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end

local interval, due

init = function(args)
  interval = 1000 / tonumber(args[1])
end

delay = function()
  local now = now_ms()
  -- The first request of a connection: spread over one interval, so that connections
  -- do not all fire at once.
  if due == nil then due = now + math.random() * interval end
  due = due + interval
  local wait = due - now
  if wait < 0 then
    due = now
    return 0
  end
  return wait
end
