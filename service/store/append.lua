-- Atomic append with optimistic concurrency and command-id idempotency, for one game's keys.
-- KEYS[1] log stream, KEYS[2] meta hash, KEYS[3] command-id hash (all hash-tagged with the game).
-- ARGV: 1 expected version, 2 command id ('' = none), 3 command digest, 4 time (ms), 5 seat ('' = none),
--       6 serialized command ('' = none), 7 final flag ('1'/''), 8 event count n, 9 meta pair count m,
--       then n event payloads, then m meta (field, value) pairs.
--       Optional after those: the timed-out flag ('1'/'': the server played this command because the
--       seat's clock ran out), then the think time in ms recorded on every entry ('' = none; the caller
--       measures it, see the clocks), then the SHA-1 (hex) of the payload of the event at the expected
--       version ('' = not checked): if the log's event there is another one, the log lost events the
--       caller had seen (Redis lost acknowledged writes) and others were written since; nothing is appended.
-- Returns {'ok', first, last} | {'dup', 'digest:first:last'} | {'conflict', current} | {'forked', current}.
local cmd_id = ARGV[2]
if cmd_id ~= '' then
  local previous = redis.call('HGET', KEYS[3], cmd_id)
  if previous then
    return {'dup', previous}
  end
end
local current = tonumber(redis.call('HGET', KEYS[2], 'version') or '0')
if current ~= tonumber(ARGV[1]) then
  return {'conflict', tostring(current)}
end
local n = tonumber(ARGV[8])
local m = tonumber(ARGV[9])
local expected_last = ARGV[12 + n + 2 * m]
if expected_last and expected_last ~= '' and current > 0 then
  local entry = redis.call('XRANGE', KEYS[1], current .. '-0', current .. '-0')
  local same = false
  if entry[1] then
    local fields = entry[1][2]
    for k = 1, #fields, 2 do
      if fields[k] == 'e' then same = redis.sha1hex(fields[k + 1]) == expected_last end
    end
  end
  if not same then return {'forked', tostring(current)} end
end
local timed_out = ARGV[10 + n + 2 * m] == '1'
local think = ARGV[11 + n + 2 * m]
if think == '' then think = nil end
for i = 1, n do
  local fields = {'e', ARGV[9 + i], 'c', cmd_id, 't', ARGV[4]}
  if ARGV[5] ~= '' then
    table.insert(fields, 's')
    table.insert(fields, ARGV[5])
  end
  if i == 1 and ARGV[6] ~= '' then
    table.insert(fields, 'cmd')
    table.insert(fields, ARGV[6])
  end
  if think then
    table.insert(fields, 'ms')
    table.insert(fields, think)
  end
  if timed_out then
    table.insert(fields, 'to')
    table.insert(fields, '1')
  end
  if i == n and ARGV[7] == '1' then
    table.insert(fields, 'f')
    table.insert(fields, '1')
  end
  redis.call('XADD', KEYS[1], (current + i) .. '-0', unpack(fields))
end
local last = current + n
redis.call('HSET', KEYS[2], 'version', last, 'updated_ms', ARGV[4])
for j = 1, m do
  redis.call('HSET', KEYS[2], ARGV[9 + n + 2 * j - 1], ARGV[9 + n + 2 * j])
end
if cmd_id ~= '' then
  redis.call('HSET', KEYS[3], cmd_id, ARGV[3] .. ':' .. (current + 1) .. ':' .. last)
end
return {'ok', tostring(current + 1), tostring(last)}
