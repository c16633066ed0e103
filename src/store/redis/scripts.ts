/**
 * The server-side scripts of `RedisLimiter`. Redis runs a script atomically (no other
 * command runs in between), which is what makes a check and its count one step.
 *
 * KEYS: the bucket's distinct counters (one per window length), all with the same hash
 * tag so that a cluster keeps them in one slot.
 */

/**
 * ARGV: wanted, then per key: its limit (the smallest of the windows sharing it) and how
 * many seconds it must live after being counted (its window's length and then some: the
 * TTL is relative, so that it never depends on the Redis server's clock agreeing with
 * the replicas'). Grants g = min(wanted, limit − count of every key),
 * at least 0, and adds g to every key only when g > 0, so a refused request counts in
 * none. Returns g, then each key's count before the grant.
 */
export const ACQUIRE_SCRIPT = `
local granted = tonumber(ARGV[1])
local counts = {}
for i = 1, #KEYS do
  local count = tonumber(redis.call('GET', KEYS[i]) or '0')
  counts[i] = count
  local left = tonumber(ARGV[2 * i]) - count
  if left < granted then granted = left end
end
if granted < 0 then granted = 0 end
if granted > 0 then
  for i = 1, #KEYS do
    redis.call('INCRBY', KEYS[i], granted)
    redis.call('EXPIRE', KEYS[i], tonumber(ARGV[2 * i + 1]))
  end
end
local reply = { granted }
for i = 1, #KEYS do reply[i + 1] = counts[i] end
return reply
`;

/**
 * ARGV: count. Lowers every existing key by `count`, never below 0; a key that expired
 * (its window long over) is left absent rather than recreated negative.
 */
export const RELEASE_SCRIPT = `
local count = tonumber(ARGV[1])
for i = 1, #KEYS do
  local current = tonumber(redis.call('GET', KEYS[i]) or '0')
  local back = math.min(current, count)
  if back > 0 then redis.call('DECRBY', KEYS[i], back) end
end
return 0
`;
