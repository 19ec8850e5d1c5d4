import { MOST_EVICTIONS_REMEMBERED, MOST_LOGGED_OVER_LIMIT } from '../streams/stream-ledger.ts'
import { redisScript } from './redis-command.ts'

// The rules of streams/stream-ledger.ts in Lua, over one key per viewer holding their record as
// JSON ({streams, ended}), so that each operation is one script on one key: atomic, and on Redis
// Cluster in one slot (the key is `{streams:<sub>}` under the prefix). The key lives until the
// last thing in it is needed (PXAT). `until` is a Lua keyword: those fields are read by index.
const LEDGER = `
local function prune(state, now)
  local streams, ended = {}, {}
  for _, s in ipairs(state.streams or {}) do
    if s.expiresAt > now then streams[#streams + 1] = s end
  end
  for _, e in ipairs(state.ended or {}) do
    if e['until'] > now then ended[#ended + 1] = e end
  end
  return streams, ended
end
local function load(key, now)
  local raw = redis.call('GET', key)
  return prune(raw and cjson.decode(raw) or {}, now)
end
-- the oldest evictions and retractions beyond the most remembered are forgotten (the
-- operator's ends are kept)
local function remembered(ended)
  local over = -${MOST_EVICTIONS_REMEMBERED}
  for _, e in ipairs(ended) do
    if e.reason ~= 'ended' then over = over + 1 end
  end
  if over <= 0 then return ended end
  local kept = {}
  for _, e in ipairs(ended) do
    if e.reason ~= 'ended' and over > 0 then over = over - 1 else kept[#kept + 1] = e end
  end
  return kept
end
local function retracted(ended, id)
  for _, e in ipairs(ended) do
    if e.id == id and e.reason == 'retracted' then return true end
  end
  return false
end
local function save(key, streams, ended, now)
  local keep = 0
  for _, s in ipairs(streams) do keep = math.max(keep, s.keepUntil) end
  for _, e in ipairs(ended) do keep = math.max(keep, e['until']) end
  if keep <= now then
    redis.call('DEL', key)
  else
    redis.call('SET', key, cjson.encode({streams = streams, ended = ended}), 'PXAT', keep)
  end
end
`

// KEYS[i] a viewer's record, ARGV[i] a StreamRequest of theirs as JSON: the starts and renewals of
// one event-loop turn in one call (a viewer named twice: in the order asked). Returns each
// verdict as JSON, in order ({kind = 'error'} for a request whose record could not be read).
export const ADMIT = redisScript(`${LEDGER}
local function admit(key, r, streams, ended)
local now = r.nowMs
if r.id then
  for _, e in ipairs(ended) do
    if e.id == r.id then
      return cjson.encode({kind = 'ended', reason = e.reason == 'retracted' and 'ended' or e.reason})
    end
  end
  for _, s in ipairs(streams) do
    if s.id == r.id then
      if r.network then
        local networks, known = s.networks or {}, false
        for _, n in ipairs(networks) do
          if n == r.network then known = true end
        end
        if not known then
          if r.maxNetworks and #networks >= r.maxNetworks then
            return cjson.encode({kind = 'ended', reason = 'networks'})
          end
          networks[#networks + 1] = r.network
          s.networks = networks
        end
      end
      s.lastSeenAt = math.max(s.lastSeenAt, now)
      s.expiresAt = math.max(s.expiresAt, r.untilMs)
      s.keepUntil = math.max(s.keepUntil, r.keepUntilMs)
      save(key, streams, ended, now)
      return cjson.encode({kind = 'renewed', lease = s})
    end
  end
end
-- a start retracted before it landed: nobody waits for its answer, it only must take no slot
if not r.id and retracted(ended, r.newId) then
  return cjson.encode({kind = 'ended', reason = 'ended'})
end
local lease = {id = r.newId, lane = r.lane, startedAt = now, lastSeenAt = now,
  expiresAt = r.untilMs, keepUntil = math.max(r.untilMs, r.keepUntilMs)}
if r.network then lease.networks = {r.network} end
local others = {}
for _, s in ipairs(streams) do
  if s.id ~= lease.id then others[#others + 1] = s end
end
local full = #others >= r.limit
if full and r.mode == 'enforce' and r.policy == 'reject-newest' then
  return cjson.encode({kind = 'refused', active = others})
end
local evict = full and r.mode == 'enforce'
local count = evict and (#others - r.limit + 1) or 0
-- log mode evicts nothing: past the limit and its margin, the oldest are forgotten
local forgotten = evict and 0 or math.max(0, #others - r.limit - ${MOST_LOGGED_OVER_LIMIT} + 1)
local kept, evicted = {}, nil
for i, s in ipairs(others) do
  if i <= count then
    ended[#ended + 1] = {id = s.id, reason = 'evicted', ['until'] = s.keepUntil}
    evicted = s
  elseif i > forgotten then
    kept[#kept + 1] = s
  end
end
kept[#kept + 1] = lease
if count > 0 then ended = remembered(ended) end
save(key, kept, ended, now)
return cjson.encode({kind = 'admitted', lease = lease, evicted = evicted,
  wouldRefuse = full and not evict, active = #kept})
end
local verdicts = {}
for i, key in ipairs(KEYS) do
  local r = cjson.decode(ARGV[i])
  local raw = redis.call('GET', key)
  -- a record this script cannot read fails its own request, not the others of the call; a
  -- Redis error (READONLY after a failover, OOM) is not caught: it fails the call, as alone
  local ok, streams, ended = pcall(function()
    return prune(raw and cjson.decode(raw) or {}, r.nowMs)
  end)
  if ok then
    verdicts[i] = admit(key, r, streams, ended)
  else
    verdicts[i] = cjson.encode({kind = 'error', error = 'unreadable stream record: ' .. tostring(streams)})
  end
end
return verdicts
`)

// KEYS[1] the viewer's record; ARGV[1] now (ms). The active streams as JSON.
export const LIST = redisScript(`${LEDGER}
local streams = load(KEYS[1], tonumber(ARGV[1]))
return cjson.encode(streams)
`)

// KEYS[1] the viewer's record; ARGV: now (ms), the stream's id ('' for all). How many ended.
export const END = redisScript(`${LEDGER}
local now = tonumber(ARGV[1])
local streams, ended = load(KEYS[1], now)
local kept, count = {}, 0
for _, s in ipairs(streams) do
  if ARGV[2] == '' or s.id == ARGV[2] then
    ended[#ended + 1] = {id = s.id, reason = 'ended', ['until'] = s.keepUntil}
    count = count + 1
  else
    kept[#kept + 1] = s
  end
end
if count > 0 then save(KEYS[1], kept, ended, now) end
return count
`)

// KEYS[1] the viewer's record; ARGV: now (ms), the id of a new stream whose start was answered
// 503, until when its lease would run (ms). retractStream of the ledger: drops that lease if the
// start reached Redis after all, and remembers the id until then, so that a start landing after
// its retraction admits nothing. How many leases it dropped.
export const RETRACT = redisScript(`${LEDGER}
local now, id, till = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local streams, ended = load(KEYS[1], now)
local kept = {}
for _, s in ipairs(streams) do
  if s.id ~= id then kept[#kept + 1] = s end
end
if till > now and not retracted(ended, id) then
  ended[#ended + 1] = {id = id, reason = 'retracted', ['until'] = till}
  save(KEYS[1], kept, remembered(ended), now)
elseif #kept < #streams then
  save(KEYS[1], kept, ended, now)
end
return #streams - #kept
`)
