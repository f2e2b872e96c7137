/**
 * The shared store's bookkeeping (entries.ts), as Lua scripts so that each step is atomic across
 * replicas: admitting an entry (sweeping timed-out ones, evicting the least recently used beyond
 * the byte bound, the owner's own first), touching one on use, releasing one, and adding a field to one.
 *
 * Keys, under the deployment's namespace N (see settings.ts) and a scope S of entries (code_search's
 * snapshots: none; web_read's kept pages: "pages:"):
 *   N:S index       ZSET  id -> use sequence (least recently used first)
 *   N:S meta        HASH  id -> "<last use ms> <stored bytes> <owner>" (see entries.ts ownerOf)
 *   N:S seq         counter giving the use sequence
 *   N:S gone        HASH  id -> "<owner> <reason>" (tombstones: released, evicted, timed out)
 *   N:S gone-order  ZSET  id -> sequence, trimmed to the tombstone bound
 *   N:S s:<id>      HASH  the entry: header "h", then its other parts (blocks, selections)
 * Times are the replicas' clocks (milliseconds), compared against the scope's time to live.
 * Scripts touch the entry hashes by name, so the store needs one Redis (or a primary with
 * replicas), not a Redis Cluster.
 */

/**
 * KEYS[1..5] of every script; ARGV[1] is the entry key prefix, ARGV[2] the tombstone bound,
 * ARGV[3] how long Redis keeps what no replica touches (the bookkeeping too, so a namespace
 * nobody uses any more, after EVIDENT_CURSOR_KEY changed, goes away by itself).
 */
const COMMON = `
local index, meta, seq, gone, goneOrder = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local prefix, maxTombstones, expiry = ARGV[1], tonumber(ARGV[2]), ARGV[3]

local function done(result)
  for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, expiry) end
  return result
end

local function parse(value)
  local used, size, owner = string.match(value, '^(%d+) (%d+) (%x+)$')
  return tonumber(used), tonumber(size), owner
end

local function drop(id, owner, reason)
  redis.call('DEL', prefix .. id)
  redis.call('HDEL', meta, id)
  redis.call('ZREM', index, id)
  redis.call('HSET', gone, id, owner .. ' ' .. reason)
  redis.call('ZADD', goneOrder, redis.call('INCR', seq), id)
  local extra = redis.call('ZCARD', goneOrder) - maxTombstones
  if extra > 0 then
    local oldest = redis.call('ZRANGE', goneOrder, 0, extra - 1)
    redis.call('ZREMRANGEBYRANK', goneOrder, 0, extra - 1)
    for _, old in ipairs(oldest) do redis.call('HDEL', gone, old) end
  end
end
`;

/**
 * ARGV after the common ones: id, owner, now, ttl, maxBytes, size, then field/value pairs. Writes
 * the entry, then evicts; the new entry itself is never evicted (a kept value is within its share
 * of the bound: kept-store.ts refuses a larger one before it gets here).
 */
export const ADMIT = `${COMMON}
local id, owner, now, ttl = ARGV[4], ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7])
local maxBytes, size = tonumber(ARGV[8]), tonumber(ARGV[9])
for i = 10, #ARGV, 2 do redis.call('HSET', prefix .. id, ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', prefix .. id, expiry)

local total = size
local entries = redis.call('HGETALL', meta)
for i = 1, #entries, 2 do
  local used, bytes, holder = parse(entries[i + 1])
  if used == nil then
    redis.call('HDEL', meta, entries[i])
  elseif now - used > ttl then
    drop(entries[i], holder, 'timed out')
  else
    total = total + bytes
  end
end
redis.call('HSET', meta, id, ARGV[6] .. ' ' .. ARGV[9] .. ' ' .. owner)
redis.call('ZADD', index, redis.call('INCR', seq), id)

-- Room is made from the caller's own entries first (least recently used first; an owner's
-- first 32 digits name its caller, whatever the scope), then from everyone's: one caller
-- evicts at most about one entry's worth of the others'.
if total > maxBytes then
  local order = redis.call('ZRANGE', index, 0, -1)
  for pass = 1, 2 do
    for _, old in ipairs(order) do
      if total <= maxBytes then break end
      if old ~= id then
        local value = redis.call('HGET', meta, old)
        if value then
          local _, bytes, holder = parse(value)
          if pass == 2 or string.sub(holder, 1, 32) == string.sub(owner, 1, 32) then
            drop(old, holder, 'evicted')
            total = total - bytes
          end
        else
          redis.call('ZREM', index, old)
        end
      end
    end
  end
end
return done('ok')
`;

/**
 * ARGV after the common ones: id, owner, now, ttl. Returns {"ok", header}, {"expired",
 * reason} or {"missing"}; another owner's entry is "missing", exactly like an unknown id.
 */
export const TOUCH = `${COMMON}
local id, owner, now, ttl = ARGV[4], ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7])
local value = redis.call('HGET', meta, id)
if not value then
  local tombstone = redis.call('HGET', gone, id)
  if tombstone then
    local holder, reason = string.match(tombstone, '^(%x+) (.+)$')
    if holder == owner then return done({'expired', reason}) end
  end
  return done({'missing'})
end
local used, size, holder = parse(value)
if holder ~= owner then return done({'missing'}) end
if now - used > ttl then
  drop(id, holder, 'timed out')
  return done({'expired', 'timed out'})
end
local header = redis.call('HGET', prefix .. id, 'h')
if not header then
  -- Redis dropped the data itself (its own expiry or memory policy): the cursor has expired.
  drop(id, holder, 'evicted')
  return done({'expired', 'evicted'})
end
redis.call('HSET', meta, id, ARGV[6] .. ' ' .. size .. ' ' .. holder)
redis.call('ZADD', index, redis.call('INCR', seq), id)
redis.call('PEXPIRE', prefix .. id, expiry)
return done({'ok', header})
`;

/** ARGV after the common ones: id, owner. Releases the owner's entry; others are untouched. */
export const RELEASE = `${COMMON}
local id, owner = ARGV[4], ARGV[5]
local value = redis.call('HGET', meta, id)
if value then
  local _, _, holder = parse(value)
  if holder == owner then drop(id, holder, 'released') end
end
return done('ok')
`;

/**
 * ARGV after the common ones: id, owner, field, value (empty: read). Adds a field (a
 * snapshot's selection) once, counting its bytes toward the bound, or reads it; only for the
 * entry's owner.
 */
export const FIELD = `${COMMON}
local id, owner, field, stored = ARGV[4], ARGV[5], ARGV[6], ARGV[7]
local value = redis.call('HGET', meta, id)
if not value then return done(false) end
local used, size, holder = parse(value)
if holder ~= owner or redis.call('EXISTS', prefix .. id) == 0 then return done(false) end
if stored == '' then return done(redis.call('HGET', prefix .. id, field) or false) end
if redis.call('HSETNX', prefix .. id, field, stored) == 1 then
  redis.call('HSET', meta, id, used .. ' ' .. (size + #field + #stored) .. ' ' .. holder)
end
return done('ok')
`;
