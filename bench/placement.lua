-- wrk script of bench/placement.py: one wrk thread per client, each placing bets as its own player.
-- args: <clients file> <run tag>. A clients file line is tab-separated: kind (partner|ui), path,
-- JSON body, then "Name: value" headers. Partner requests get a fresh Idempotency-Key each.
-- done() prints one line, "RESULT {json}": requests, duration, socket errors, latency, statuses.

local threads = {}
local next_id = 0

function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

local function split(line)
  local fields = {}
  for field in string.gmatch(line, "[^\t]+") do
    table.insert(fields, field)
  end
  return fields
end

function init(args)
  local line_number, fields = 0, nil
  for line in io.lines(args[1]) do
    if line_number == id then
      fields = split(line)
      break
    end
    line_number = line_number + 1
  end
  partner = fields[1] == "partner"
  path, body = fields[2], fields[3]
  headers = { ["Content-Type"] = "application/json" }
  for i = 4, #fields do
    local name, value = string.match(fields[i], "^([^:]+): (.*)$")
    headers[name] = value
  end
  key_prefix = args[2] .. "-" .. id .. "-"
  counter = 0
  statuses = {}
end

function request()
  counter = counter + 1
  if partner then
    headers["Idempotency-Key"] = key_prefix .. counter
  end
  return wrk.format("POST", path, headers, body)
end

function response(status, response_headers, response_body)
  local key = tostring(status)
  if status >= 400 then
    key = key .. ":" .. (string.match(response_body or "", '"code"%s*:%s*"([^"]+)"') or "?")
  end
  statuses[key] = (statuses[key] or 0) + 1
end

function done(summary, latency, requests)
  local counts = {}
  for _, thread in ipairs(threads) do
    for key, count in pairs(thread:get("statuses")) do
      counts[key] = (counts[key] or 0) + count
    end
  end
  local parts = {}
  for key, count in pairs(counts) do
    table.insert(parts, string.format('"%s": %d', key, count))
  end
  local errors = summary.errors
  io.write(string.format(
    'RESULT {"requests": %d, "duration_us": %d, "p50_us": %d, "p99_us": %d, "max_us": %d, '
      .. '"socket_errors": {"connect": %d, "read": %d, "write": %d, "timeout": %d}, "statuses": {%s}}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    errors.connect, errors.read, errors.write, errors.timeout, table.concat(parts, ", ")
  ))
end
