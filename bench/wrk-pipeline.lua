-- wrk script of bench/http-load.ts: each connection writes `depth` requests at once
-- (HTTP/1.1 pipelining, as autocannon's `pipelining` option), headers from -H.
-- Usage: wrk -s bench/wrk-pipeline.lua URL -- DEPTH
init = function(args)
  local depth = tonumber(args[1]) or 1
  local requests = {}
  for i = 1, depth do requests[i] = wrk.format() end
  batch = table.concat(requests)
end

request = function()
  return batch
end
