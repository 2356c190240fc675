-- POST /plants with a unique id per request. Usage: wrk ... -s bench/wrk-post-plants.lua -- <offset>
-- Each thread counts in its own range above <offset>, so runs with different offsets never collide.
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("idx", threads)
end
function init(args)
  base = tonumber(args[1] or "0") + idx * 100000000
  counter = 0
end
function request()
  counter = counter + 1
  local body = string.format('{"name":"bench plant %d","tag":"bench","id":%d}', counter, base + counter)
  -- wrk.format replaces wrk.headers when given a table, so keep the -H headers (Authorization).
  local headers = { ["Content-Type"] = "application/json" }
  for name, value in pairs(wrk.headers) do headers[name] = value end
  return wrk.format("POST", "/plants", headers, body)
end
